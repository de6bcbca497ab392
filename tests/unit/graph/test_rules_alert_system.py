"""An alert with nothing else under its own name is still evidence about the system whose moving
series carry its identity labels, or whose job a question names: that system is the root cause."""

from __future__ import annotations

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
    digest = Digest(
        alert_groups=[_alert("kv-7", {"instance": "kv-7"})], anomalies=[_moved(series, "kv-7")]
    )
    service, statement = _diagnose(digest, "why did keystore jump?", services=("keystore",))
    assert service == "kv-7"
    assert "kv-7" in statement


def test_an_alert_with_truly_nothing_else_is_still_not_explained() -> None:
    digest = Digest(alert_groups=[_alert("/pay", {"handler": "/pay"})])
    service, summary = _diagnose(digest, "why is paying failing?")
    assert service is None
    assert "its cause is not established" in summary
