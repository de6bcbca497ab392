"""Asked about a symptom no system is named for, a store whose series began to move the minute its
writer's release went out is that release's doing: the writer that changed just before the store's
first move, and whose errors name the store, is the root, though the store's alerts are the loudest."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

STORE = {"job": "colstore", "instance": "cs-01:9363"}


def _line(
    evidence: str, service: str, level: str, example: str, first: str, last: str, count: int
) -> LogPattern:
    return LogPattern(
        evidence_id=evidence,
        service=service,
        level=level,
        template=example,
        count=count,
        first_seen=first,
        last_seen=last,
        example=example,
    )


def _digest(released_at: str) -> Digest:
    return Digest(
        anomalies=[
            MetricAnomaly(
                evidence_id="metrics-1",
                metric="colstore_max_part_count_for_partition",
                labels=STORE,
                service="colstore",
                baseline=10,
                recent=297,
                peak=297,
                change_at="2026-01-01T08:51:30Z",
                direction="up",
                ratio=29.7,
                score=40.0,
            ),
            MetricAnomaly(
                evidence_id="metrics-2",
                metric="rate(colstore_rejected_inserts_total)",
                labels=STORE,
                service="colstore",
                baseline=0,
                recent=2.5,
                peak=3.0,
                change_at="2026-01-01T09:41:00Z",
                direction="up",
                ratio=50.0,
                score=30.0,
            ),
        ],
        log_patterns=[
            _line("logs-1", "ingester", "info", "Initiated sync to 'v2.14.0'", released_at, released_at, 1),
            _line(
                "logs-2",
                "ingester",
                "error",
                "insert into colstore failed, will retry: Too many parts (300)",
                "2026-01-01T09:41:20Z",
                "2026-01-01T10:29:50Z",
                58,
            ),
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="ColstoreRejectedInserts",
                service="colstore",
                severity="critical",
                status="firing",
                count=1,
                instances=["cs-01:9363"],
                first_started="2026-01-01T09:42:00Z",
                summary="Inserts are rejected: too many parts",
                labels={"alertname": "ColstoreRejectedInserts", **STORE},
            )
        ],
    )


def _diagnose(digest: Digest) -> tuple[str, str]:
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why is the analytics dashboard stale?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T10:30:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    return draft.root_cause.service, draft.root_cause.category


def test_the_writer_released_as_the_store_began_to_move_is_the_root() -> None:
    assert _diagnose(_digest("2026-01-01T08:52:08Z")) == ("ingester", "bad_deploy")


def test_a_release_after_the_store_was_already_moving_is_no_cause() -> None:
    service, _ = _diagnose(_digest("2026-01-01T09:05:00Z"))
    assert service in {"colstore", "cs-01"}  # the store, by its job or by its one machine
