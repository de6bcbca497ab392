"""An alert with nothing else under its own name is still evidence about the system whose moving
series carry its identity labels, or whose job a question names: that system is the root cause."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, EvidenceRef, Route
from graph.analysts.rules.diagnose import diagnose_digest
from tools.facts import AlertGroup, Digest, MetricAnomaly

NOW = "2026-01-01T11:00:00Z"
EVIDENCE = [
    EvidenceRef(id="alerts-1", source="alerts", tool="list_alerts", title="a", status="OK", summary=""),
    EvidenceRef(id="metrics-1", source="metrics", tool="read_metric", title="m", status="OK", summary=""),
]


def _alert(service: str, labels: dict[str, str]) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1",
        alertname="SomethingFiring",
        service=service,
        severity="critical",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T10:50:00Z",
        summary="it fires",
        identities=[" ".join(f"{k}={v}" for k, v in labels.items())],
        labels={"alertname": "SomethingFiring", "severity": "critical", **labels},
    )


def _moved(labels: dict[str, str], service: str) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-1",
        metric="rate(requests_failed_total)",
        labels=labels,
        service=service,
        baseline=0.9,
        recent=3.2,
        peak=3.2,
        change_at="2026-01-01T10:49:00Z",
        direction="up",
        ratio=3.556,
        score=4.0,
    )


def _diagnose(digest: Digest, question: str, services: tuple[str, ...] = ()) -> tuple[str | None, str]:
    route = Route(route="complex", resolved_query=question)
    draft = diagnose_digest(
        DiagnoseRequest(route=route, evidence=EVIDENCE, digest=digest, now=NOW, services=services)
    )
    root = draft.root_cause
    return (root.service, root.statement) if root else (None, draft.summary)


def test_an_alert_named_by_its_handler_joins_the_system_whose_series_carry_that_handler() -> None:
    series = {"handler": "/pay", "instance": "shopfront-1", "job": "shopfront"}
    digest = Digest(
        alert_groups=[_alert("/pay", {"handler": "/pay"})], anomalies=[_moved(series, "shopfront")]
    )
    service, statement = _diagnose(digest, "why is paying failing?")
    assert service == "shopfront"
    assert "handler=/pay" in statement and "SomethingFiring" in statement
    assert "not established" not in statement


def test_a_question_naming_the_job_asks_about_the_instance_the_alert_fires_on() -> None:
    series = {"instance": "kv-7", "job": "keystore", "db": "db0"}
    digest = Digest(alert_groups=[_alert("kv-7", {"instance": "kv-7"})], anomalies=[_moved(series, "kv-7")])
    service, statement = _diagnose(digest, "why did keystore jump?", services=("keystore",))
    assert service == "kv-7"
    assert "kv-7" in statement


def test_an_alert_with_truly_nothing_else_is_still_not_explained() -> None:
    digest = Digest(alert_groups=[_alert("/pay", {"handler": "/pay"})])
    service, summary = _diagnose(digest, "why is paying failing?")
    assert service is None
    assert "its cause is not established" in summary


def test_a_handler_alert_joins_its_system_even_when_another_system_moved_more() -> None:
    """The join happens before ranking: the lone alert is never ruled out as a herring beside the
    series of its own system, and an unrelated system's bigger move does not take its place."""
    series = {"handler": "/pay", "instance": "shopfront-1", "job": "shopfront"}
    noise = replace(_moved({"instance": "db-1", "job": "db"}, "db"), score=40.0)
    digest = Digest(
        alert_groups=[_alert("/pay", {"handler": "/pay"})], anomalies=[_moved(series, "shopfront"), noise]
    )
    route = Route(route="complex", resolved_query="why is pay failing?")
    draft = diagnose_digest(DiagnoseRequest(route=route, evidence=EVIDENCE, digest=digest, now=NOW))
    assert draft.root_cause is not None and draft.root_cause.service == "shopfront"
    assert "/pay" not in [item.service for item in draft.ruled_out]


def test_an_alert_named_by_a_job_does_not_join_a_host_that_took_the_jobs_series() -> None:
    """`TargetDown{job=node}` is about the node job: a host whose node-exporter series carry job=node
    (they are the job's own series, taken by instance) does not become its owner."""
    on_host = _moved({"instance": "ingest-3", "job": "node", "device": "sdb"}, "node")
    job_alert = _alert("node", {"job": "node"})
    job_alert = replace(
        job_alert, alertname="TargetDown", labels={**job_alert.labels, "alertname": "TargetDown"}
    )
    digest = Digest(
        alert_groups=[job_alert, _alert("ingest-3", {"instance": "ingest-3"})], anomalies=[on_host]
    )
    route = Route(route="complex", resolved_query="why is ingest slow?")
    draft = diagnose_digest(DiagnoseRequest(route=route, evidence=EVIDENCE, digest=digest, now=NOW))
    assert draft.root_cause is not None and draft.root_cause.service == "ingest-3"
    on_root = [f.statement for f in draft.findings if f.statement.startswith("Firing alerts on ingest-3")]
    assert on_root and "TargetDown" not in on_root[0]


def test_a_joined_alerts_finding_cites_the_series_that_make_it_the_systems() -> None:
    """'Firing alerts on shopfront' is checked against its citations: the alert alone never names
    shopfront, the series carrying its handler do (EvidenceGuard refused the finding without them)."""
    series = {"handler": "/pay", "instance": "shopfront-1", "job": "shopfront"}
    digest = Digest(
        alert_groups=[_alert("/pay", {"handler": "/pay"})], anomalies=[_moved(series, "shopfront")]
    )
    route = Route(route="complex", resolved_query="why is pay failing?")
    draft = diagnose_digest(DiagnoseRequest(route=route, evidence=EVIDENCE, digest=digest, now=NOW))
    alerts = [f for f in draft.findings if f.statement.startswith("Firing alerts on shopfront")]
    assert alerts and alerts[0].evidence_ids == ["alerts-1", "metrics-1"]
