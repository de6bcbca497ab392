"""The rule-based diagnosis on plain digests: dependency direction, red herrings, healthy systems."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, EvidenceRef, Route
from graph.analysts.rules.diagnose import diagnose_digest
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly


def _anomaly(service: str, metric: str, at: str, evidence_id: str = "metrics-1") -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id=evidence_id,
        metric=metric,
        labels={"service": service},
        service=service,
        baseline=1.0,
        recent=9.0,
        peak=12.0,
        change_at=at,
        direction="up",
        ratio=9.0,
        score=8.0,
    )


def _errors(service: str, message: str, first: str, count: int = 40) -> LogPattern:
    return LogPattern(
        evidence_id="logs-1",
        service=service,
        level="ERROR",
        template=message,
        count=count,
        first_seen=first,
        last_seen="2026-01-01T11:00:00Z",
        example=message,
    )


def _request(digest: Digest, evidence: list[EvidenceRef] | None = None) -> DiagnoseRequest:
    route = Route(route="complex", resolved_query="why is the frontend failing?")
    return DiagnoseRequest(route=route, evidence=evidence or [], digest=digest, now="2026-01-01T11:00:00Z")


def test_errors_naming_an_upstream_point_to_it() -> None:
    digest = Digest(
        anomalies=[
            _anomaly("frontend", "http_latency_p99", "2026-01-01T10:32:00Z"),
            _anomaly("ledger", "lock_wait_seconds", "2026-01-01T10:31:00Z", "metrics-2"),
        ],
        log_patterns=[
            _errors("frontend", "call to ledger failed: deadline exceeded", "2026-01-01T10:32:10Z"),
            _errors("ledger", "lock wait timeout exceeded; deadlock found", "2026-01-01T10:31:05Z"),
        ],
    )
    draft = diagnose_digest(_request(digest))
    assert draft.root_cause is not None
    assert draft.root_cause.service == "ledger"
    assert draft.root_cause.category == "slow_query"
    assert any("frontend errors name ledger" in f.statement for f in draft.findings)


def test_alert_long_before_the_incident_is_ruled_out() -> None:
    old = AlertGroup(
        evidence_id="alerts-1",
        alertname="HighCPU",
        service="reports",
        severity="warning",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T02:00:00Z",
        summary="cpu high",
    )
    digest = Digest(
        alert_groups=[old],
        anomalies=[_anomaly("ledger", "error_ratio", "2026-01-01T10:31:00Z")],
        log_patterns=[_errors("ledger", "connection refused by store", "2026-01-01T10:31:05Z")],
    )
    draft = diagnose_digest(_request(digest))
    assert draft.root_cause is not None and draft.root_cause.service == "ledger"
    assert [item.service for item in draft.ruled_out] == ["reports"]


def test_quiet_digest_means_no_incident_and_no_root_cause() -> None:
    evidence = [
        EvidenceRef(
            id="alerts-1",
            source="alerts",
            tool="list_alerts",
            title="alerts",
            status="EMPTY",
            summary="no alerts",
        )
    ]
    draft = diagnose_digest(_request(Digest(), evidence))
    assert draft.healthy and draft.root_cause is None
    assert draft.summary.startswith("No incident found")


def test_unreadable_telemetry_is_not_called_healthy() -> None:
    evidence = [
        EvidenceRef(
            id="alerts-1",
            source="alerts",
            tool="list_alerts",
            title="alerts",
            status="UNAVAILABLE",
            summary="down",
        )
    ]
    draft = diagnose_digest(_request(Digest(), evidence))
    assert not draft.healthy and draft.root_cause is None


def test_a_dependency_seen_only_in_others_errors_can_be_the_root_cause() -> None:
    digest = Digest(
        anomalies=[_anomaly("frontend", "http_error_ratio", "2026-01-01T10:32:00Z")],
        log_patterns=[
            _errors("frontend", "connection refused by pg-main:5432", "2026-01-01T10:31:50Z"),
            _errors("worker", "pg-main unreachable: connection refused", "2026-01-01T10:31:40Z"),
        ],
    )
    route = Route(route="complex", resolved_query="why is the frontend failing?")
    request = DiagnoseRequest(
        route=route,
        evidence=[],
        digest=digest,
        now="2026-01-01T11:00:00Z",
        services=["frontend", "worker", "pg-main"],
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    assert draft.root_cause.service == "pg-main"
    assert draft.root_cause.category == "slow_dependency"
