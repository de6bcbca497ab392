"""A queue's backlog is a symptom: asked why work is late, the answer follows the backlog to the worker
its exporter names and on to the third party that refuses that worker's calls (HTTP 429), named by the
word its callers use for it; the broker's copy of the same queue is no cause of its own."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.categories import categorize
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.external import vendor_name
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

EXPORTER = {"job": "task-exporter", "instance": "task-exporter.jobs.svc:9808"}
WORKER = {**EXPORTER, "hostname": "worker@mail-worker-2"}
REFUSED = (
    "[2026-01-01 09:44:55,686: WARNING/ForkPoolWorker-4] tasks.send_reset[67acc66b]: mailvendor: POST "
    "https://api.mailvendor.com/v3/mail/send -> 429 Too Many Requests (X-RateLimit-Remaining=0)"
)


def _series(metric: str, labels: dict[str, str], base: float, now: float, evidence: str) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id=evidence,
        metric=metric,
        labels=labels,
        service=labels.get("job"),
        baseline=base,
        recent=now,
        peak=now,
        change_at="2026-01-01T09:05:00Z",
        direction="up" if now > base else "down",
        ratio=max(now, 0.1) / max(base, 0.1),
        score=40.0,
    )


def _digest(refusal: str = REFUSED) -> Digest:
    return Digest(
        anomalies=[
            _series("task_queue_length", {**EXPORTER, "queue_name": "outbox"}, 2, 693, "metrics-1"),
            _series("task_worker_tasks_active", WORKER, 0, 4, "metrics-2"),
            _series(
                "broker_queue_messages_ready",
                {"job": "broker", "instance": "broker-0:15692", "queue": "outbox"},
                2,
                693,
                "metrics-3",
            ),
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="TaskQueueBacklog",
                service="task-exporter",
                severity="critical",
                status="firing",
                count=1,
                instances=["task-exporter.jobs.svc:9808"],
                first_started="2026-01-01T09:30:00Z",
                summary="Task queue outbox is backing up",
                labels={"alertname": "TaskQueueBacklog", **EXPORTER, "queue_name": "outbox"},
            )
        ],
        log_patterns=[
            LogPattern(
                evidence_id="logs-1",
                service="mail-worker",
                level="warning",
                template=refusal,
                count=125,
                first_seen="2026-01-01T09:04:11Z",
                last_seen="2026-01-01T09:59:00Z",
                example=refusal,
            )
        ],
    )


def _diagnose(digest: Digest) -> tuple[str, str, str]:
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why are password-reset emails late?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T10:00:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    return draft.root_cause.service, draft.root_cause.category, draft.root_cause.statement


def test_a_backlog_is_followed_to_the_third_party_refusing_its_workers_calls() -> None:
    service, category, statement = _diagnose(_digest())
    assert (service, category) == ("mailvendor", "saturation")
    assert "mail-worker" in statement and "125 WARNING lines" in statement


def test_a_third_party_goes_by_the_word_its_callers_use_else_its_host() -> None:
    assert vendor_name("api.mailvendor.com", _digest().log_patterns) == "mailvendor"
    plain = "POST https://api.mailvendor.com/v3/mail/send -> 429 Too Many Requests"
    assert vendor_name("api.mailvendor.com", _digest(plain).log_patterns) == "api.mailvendor.com"


def test_a_worker_process_name_and_a_spent_quota_are_no_connection_pool() -> None:
    assert categorize(REFUSED, changed=False) == "saturation"
    assert categorize("sendgrid rate limit exhausted, resets in 58s", changed=False) == "saturation"
    pool = "HikariPool-1 - Connection is not available"
    assert categorize(pool, changed=False) == "connection_pool_exhaustion"


def test_the_member_an_answer_is_named_for_is_shown_with_its_own_series() -> None:
    """Named after the worker its busiest series holds, the answer cites that series however many
    stronger moves of the whole crowd the findings (else the evidence guard finds the name nowhere)."""
    crowd = [
        replace(_series(f"task_{kind}_total", EXPORTER, 1, 50, f"metrics-{4 + i}"), score=90.0 - i)
        for i, kind in enumerate(("retried", "failed", "received", "rejected"))
    ]
    member = replace(
        _series("task_worker_tasks_active", WORKER, 0, 4, "metrics-9"),
        score=1.0,
    )
    queue = _series("task_queue_length", {**EXPORTER, "queue_name": "outbox"}, 2, 693, "metrics-1")
    digest = replace(_digest(), anomalies=[queue, *crowd, member], log_patterns=[])
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why are emails late?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T10:00:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.service == "worker@mail-worker-2"
    assert "metrics-9" in {i for f in draft.findings for i in f.evidence_ids}
