"""Scoping the rule-based diagnosis to the one service an alert-focused question is about."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Draft, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.scope import scoped_service
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

KNOWN = ["frontend", "ledger", "batch-job"]


def _anomaly(service: str, metric: str, at: str, evidence_id: str, **labels: str) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id=evidence_id,
        metric=metric,
        labels={"service": service, **labels},
        service=service,
        baseline=1.0,
        recent=9.0,
        peak=12.0,
        change_at=at,
        direction="up",
        ratio=9.0,
        score=8.0,
    )


def _lines(service: str, message: str, first: str, level: str = "ERROR", count: int = 40) -> LogPattern:
    return LogPattern(
        evidence_id="logs-1",
        service=service,
        level=level,
        template=message,
        count=count,
        first_seen=first,
        last_seen="2026-01-01T11:00:00Z",
        example=message,
    )


def _alert(service: str, name: str, since: str, summary: str, severity: str = "warning") -> AlertGroup:
    return AlertGroup(
        evidence_id=f"alerts-{service}",
        alertname=name,
        service=service,
        severity=severity,
        status="firing",
        count=1,
        instances=[],
        first_started=since,
        summary=summary,
    )


def _incident(*extra_alerts: AlertGroup) -> Digest:
    """ledger's lock trouble at 10:31; frontend's errors name ledger; a batch job hot since 02:00."""
    return Digest(
        alert_groups=[
            _alert("ledger", "LockWaits", "2026-01-01T10:33:00Z", "ledger lock waits", "critical"),
            _alert("frontend", "HighLatency", "2026-01-01T10:34:00Z", "frontend p99 above 1s"),
            _alert("batch-job", "HighCPU", "2026-01-01T02:00:00Z", "CPU usage above 90%"),
            *extra_alerts,
        ],
        anomalies=[
            _anomaly("frontend", "http_latency_p99", "2026-01-01T10:32:00Z", "metrics-1"),
            _anomaly("ledger", "lock_wait_seconds", "2026-01-01T10:31:00Z", "metrics-2"),
        ],
        log_patterns=[
            _lines("frontend", "call to ledger failed: deadline exceeded", "2026-01-01T10:32:10Z"),
            _lines("ledger", "lock wait timeout exceeded; deadlock found", "2026-01-01T10:31:05Z"),
        ],
    )


def _diagnose(digest: Digest, question: str, services: list[str]) -> Draft:
    route = Route(route="complex", resolved_query=question, services=services)
    request = DiagnoseRequest(
        route=route, evidence=[], digest=digest, now="2026-01-01T11:00:00Z", services=KNOWN
    )
    return diagnose_digest(request)


def test_an_alert_question_naming_one_service_is_scoped_to_it() -> None:
    question = "Alert HighCPU is firing on batch-job. What is the root cause?"
    assert scoped_service(question, ["batch-job"], KNOWN) == "batch-job"


def test_questions_naming_two_services_are_not_scoped_and_one_named_service_is() -> None:
    assert scoped_service("Is the CPU alert on batch-job why frontend fails?", [], KNOWN) is None
    # A question naming one service scopes to it, alert word or not (its chain upstream is followed).
    assert scoped_service("Why is frontend slow?", ["frontend"], KNOWN) == "frontend"


def test_an_unrelated_alert_is_its_own_incident_and_never_the_concurrent_ones() -> None:
    draft = _diagnose(
        _incident(), "Alert HighCPU is firing on batch-job. What is the root cause?", ["batch-job"]
    )
    # Nothing but the alert speaks for batch-job: an incident whose cause is not established.
    assert draft.verdict == "incident" and draft.root_cause is None
    assert draft.summary.startswith("Alert HighCPU is firing on batch-job")
    assert "Also happening: ledger." in draft.summary
    assert [item.service for item in draft.ruled_out] == ["ledger"]
    assert all("ledger" not in f.statement for f in draft.findings)


def test_a_victim_alert_still_points_to_the_upstream_its_errors_name() -> None:
    draft = _diagnose(
        _incident(), "Alert HighLatency is firing on frontend. What is the root cause?", ["frontend"]
    )
    assert draft.root_cause is not None and draft.root_cause.service == "ledger"
    assert "batch-job" in [item.service for item in draft.ruled_out]


def test_an_earlier_anomaly_of_a_called_service_is_followed_upstream() -> None:
    """frontend's errors name no one, but its info lines show it calls ledger, which broke first."""
    digest = Digest(
        alert_groups=[_alert("frontend", "HighErrors", "2026-01-01T10:34:00Z", "frontend 5xx above 5%")],
        anomalies=[
            _anomaly("frontend", "http_error_ratio", "2026-01-01T10:32:00Z", "metrics-1"),
            _anomaly("ledger", "lock_wait_seconds", "2026-01-01T10:20:00Z", "metrics-2"),
            _anomaly("search", "cpu_seconds", "2026-01-01T10:31:00Z", "metrics-3"),
        ],
        log_patterns=[
            _lines("frontend", "request failed with status 500", "2026-01-01T10:32:10Z"),
            _lines("frontend", "posting entry to ledger", "2026-01-01T09:00:00Z", level="INFO", count=900),
            _lines("search", "query failed: index shard unavailable", "2026-01-01T10:31:05Z"),
        ],
    )
    question = "Alert HighErrors is firing on frontend. What is the root cause?"
    draft = _diagnose(digest, question, ["frontend"])
    assert draft.root_cause is not None and draft.root_cause.service == "ledger"


def test_a_called_service_whose_trouble_began_later_is_not_the_cause() -> None:
    digest = Digest(
        alert_groups=[
            _alert("frontend", "HighErrors", "2026-01-01T10:34:00Z", "frontend 5xx above 5%"),
            _alert("ledger", "LockWaits", "2026-01-01T10:33:00Z", "ledger lock waits", "critical"),
        ],
        anomalies=[
            _anomaly("frontend", "http_error_ratio", "2026-01-01T10:20:00Z", "metrics-1"),
            _anomaly("ledger", "lock_wait_seconds", "2026-01-01T10:32:00Z", "metrics-2"),
        ],
        log_patterns=[
            _lines("frontend", "request failed with status 500", "2026-01-01T10:20:10Z", count=5),
            _lines("frontend", "posting entry to ledger", "2026-01-01T09:00:00Z", level="INFO", count=900),
            _lines("ledger", "lock wait timeout exceeded; deadlock found", "2026-01-01T10:32:05Z", count=400),
        ],
    )
    unscoped = _diagnose(digest, "What is going on?", [])
    assert unscoped.root_cause is not None and unscoped.root_cause.service == "ledger"
    question = "Alert HighErrors is firing on frontend. What is the root cause?"
    draft = _diagnose(digest, question, ["frontend"])
    assert draft.root_cause is not None and draft.root_cause.service == "frontend"
    assert [item.service for item in draft.ruled_out] == ["ledger"]


def test_a_chat_question_about_two_services_keeps_the_incident_root_cause() -> None:
    question = "Is the HighCPU alert on batch-job the reason frontend is slow?"
    draft = _diagnose(_incident(), question, ["batch-job"])
    assert draft.root_cause is not None and draft.root_cause.service == "ledger"
    assert "batch-job" in [item.service for item in draft.ruled_out]


def test_an_alert_named_with_the_host_it_is_about_is_scoped_to_that_host() -> None:
    probe = AlertGroup(
        evidence_id="alerts-1",
        alertname="SSLCertExpiringSoon",
        service="blackbox-tls",
        severity="warning",
        status="firing",
        count=1,
        instances=["statements.example.test:443"],
        first_started="2026-01-01T08:00:00Z",
        summary="SSL certificate will expire soon",
        labels={
            "alertname": "SSLCertExpiringSoon",
            "job": "blackbox-tls",
            "instance": "statements.example.test:443",
        },
    )
    digest = Digest(alert_groups=[probe])
    question = "Do we need to act on the SSLCertExpiringSoon alert for statements.example.test?"
    known = ["statements.example.test", "blackbox-tls"]
    assert scoped_service(question, [], known, digest) == "statements.example.test"
    # Two systems the question names, neither the other's alert: no scope.
    assert (
        scoped_service(
            "is the SSLCertExpiringSoon alert why logins fail on auth-api?", [], [*known, "auth-api"], digest
        )
        is None
    )


def test_a_later_sentence_telling_of_something_else_too_is_an_aside() -> None:
    busy = AlertGroup(
        evidence_id="alerts-1",
        alertname="CPUUtilization-High",
        service="batch-7",
        severity="warning",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T10:05:00Z",
        summary="CPU above 90%",
        labels={"alertname": "CPUUtilization-High", "name": "batch-7"},
    )
    digest = Digest(alert_groups=[busy])
    known = ["batch-7", "sessions"]
    aside = "Customers keep getting logged out. There is also a CPU alarm on batch-7. What is the cause?"
    assert scoped_service(aside, ["batch-7"], known, digest) is None
    assert (
        scoped_service("batch-7 is also slow. Why?", ["batch-7"], known, digest) == "batch-7"
    )  # the subject
    # Asking whether it is why: batch-7 is a suspect to confirm or rule out, not what is diagnosed.
    assert (
        scoped_service("Logins fail. Is the CPU alarm on batch-7 also why?", ["batch-7"], known, digest)
        is None
    )
