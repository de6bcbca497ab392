"""Digest facts for the rule analyst's tests: a question asked at NOW, a moved series, a firing alert
and a log pattern, each with what the tests vary and nothing else."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Route
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

NOW = "2026-03-01T11:00:00Z"


def ask(question: str, digest: Digest) -> DiagnoseRequest:
    return DiagnoseRequest(
        route=Route(route="complex", resolved_query=question), evidence=[], digest=digest, now=NOW
    )


def move(metric: str, service: str, at: str, labels: dict[str, str]) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-2",
        metric=metric,
        labels=labels,
        service=service,
        baseline=0.0,
        recent=4.0,
        peak=4.0,
        change_at=at,
        direction="up",
        ratio=1e6,
        score=50.0,
    )


def alert(name: str, service: str, at: str, labels: dict[str, str], summary: str) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1",
        alertname=name,
        service=service,
        severity="critical",
        status="firing",
        count=1,
        instances=[],
        first_started=at,
        summary=summary,
        labels={"alertname": name, **labels},
    )


def lines(service: str, text: str, first: str, count: int = 40, **fields: str | None) -> LogPattern:
    return LogPattern(
        evidence_id="logs-2",
        service=service,
        level=fields.pop("level", None) or "error",
        template=text,
        count=count,
        first_seen=first,
        last_seen="2026-03-01T10:59:00Z",
        example=text,
        host=fields.pop("host", None),
    )
