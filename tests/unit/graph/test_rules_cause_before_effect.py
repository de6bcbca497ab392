"""Cause before effect: a system whose own signals began before another's errors explains them even
when no error names it, and an exporter's series belong to the system an alert or log stream names."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.suspects import rank_suspects
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly


def _anomaly(metric: str, labels: dict[str, str], service: str, at: str) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-1",
        metric=metric,
        labels=labels,
        service=service,
        baseline=40.0,
        recent=395.0,
        peak=400.0,
        change_at=at,
        direction="up",
        ratio=9.9,
        score=12.0,
    )


VICTIM_ERRORS = LogPattern(
    evidence_id="logs-1",
    service="scheduler",
    level="ERROR",
    template="FATAL: remaining connection slots are reserved (req=<id>)",
    count=37,
    first_seen="2026-01-01T07:23:00Z",
    last_seen="2026-01-01T07:44:00Z",
    example="FATAL: remaining connection slots are reserved (req=79934174)",
)


def test_a_database_whose_connections_filled_before_the_errors_is_the_root_cause() -> None:
    filled = _anomaly(
        "DatabaseConnections", {"DBInstanceIdentifier": "ops-db"}, "ops-db", "2026-01-01T07:15:00Z"
    )
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="slots can't be scheduled since 07:20, what's wrong?"),
        evidence=[],
        digest=Digest(anomalies=[filled], log_patterns=[VICTIM_ERRORS]),
        now="2026-01-01T07:45:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    assert draft.root_cause.service == "ops-db"
    assert draft.root_cause.category == "connection_pool_exhaustion"
    assert "DatabaseConnections rose from 40 to 395 at 2026-01-01T07:15:00Z" in draft.root_cause.statement


def test_signals_that_began_after_the_errors_do_not_take_the_blame() -> None:
    later = _anomaly(
        "DatabaseConnections", {"DBInstanceIdentifier": "ops-db"}, "ops-db", "2026-01-01T07:30:00Z"
    )
    ranking = rank_suspects(Digest(anomalies=[later], log_patterns=[VICTIM_ERRORS]))
    assert ranking.ranked[0].service == "scheduler"
    assert not ranking.ranked[0].precedes


def test_an_exporters_series_belong_to_the_system_an_alert_names_by_its_host() -> None:
    alert = AlertGroup(
        evidence_id="alerts-1",
        alertname="CheckpointsTooFrequent",
        service="pg-a",
        severity="warning",
        status="firing",
        count=1,
        instances=["pg-a"],
        first_started="2026-01-01T07:20:00Z",
        summary="checkpoints requested every 40s",
    )
    series = _anomaly(
        "rate(pg_stat_bgwriter_checkpoints_req_total)",
        {"job": "postgres", "instance": "pg-a", "server": "pg-a:5432"},
        "postgres",
        "2026-01-01T07:10:00Z",
    )
    ranking = rank_suspects(Digest(alert_groups=[alert], anomalies=[series]))
    owner = next(s for s in ranking.ranked if s.service == "pg-a")
    assert owner.anomalies == [series]
    assert all(s.service != "postgres" for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet])


def test_a_platform_event_just_before_the_errors_is_the_cause_and_names_the_category() -> None:
    event = LogPattern(
        evidence_id="logs-2",
        service="grid-db",
        level="INFO",
        template="Multi-AZ instance failover started.",
        count=1,
        first_seen="2026-01-01T07:17:00Z",
        last_seen="2026-01-01T07:17:00Z",
        example="Multi-AZ instance failover started.",
    )
    writes = LogPattern(
        evidence_id="logs-1",
        service="controller",
        level="ERROR",
        template="update failed: ERROR: cannot execute UPDATE in a read-only transaction",
        count=38,
        first_seen="2026-01-01T07:20:00Z",
        last_seen="2026-01-01T07:44:00Z",
        example="update failed: ERROR: cannot execute UPDATE in a read-only transaction",
    )
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="updates have been failing for 20 minutes, why?"),
        evidence=[],
        digest=Digest(log_patterns=[event, writes]),
        now="2026-01-01T07:45:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    assert draft.root_cause.service == "grid-db"
    assert draft.root_cause.category == "failover"
    assert (
        'change "Multi-AZ instance failover started." at 2026-01-01T07:17:00Z' in draft.root_cause.statement
    )


def test_a_pod_of_the_root_is_part_of_it_not_a_ruled_out_red_herring() -> None:
    pod_alert = AlertGroup(
        evidence_id="alerts-1",
        alertname="PodCrashLooping",
        service="scheduler-6f8b",
        severity="warning",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T07:30:00Z",
        summary="pod restarting",
    )
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why is scheduling broken?"),
        evidence=[],
        digest=Digest(alert_groups=[pod_alert], log_patterns=[VICTIM_ERRORS]),
        now="2026-01-01T07:45:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.service == "scheduler"
    assert draft.ruled_out == []
