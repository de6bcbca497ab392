"""A pod's address is no machine: a proxy's "upstream 10.44.3.21:8080 timed out" beside an alert on
`pod=... instance=10.44.3.21:8081` names the pod's workload, which keeps its own name."""

from __future__ import annotations

from graph.analysts.rules.suspects import rank_suspects
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

POD = {
    "application": "quote-api",
    "job": "quote-api",
    "namespace": "freight",
    "pod": "quote-api-6d8f9c7b54-q7kzt",
    "instance": "10.44.3.21:8081",
}


def _digest(labels: dict[str, str]) -> Digest:
    busy = MetricAnomaly(
        evidence_id="metrics-1",
        metric="tomcat_threads_busy_threads",
        labels=labels,
        service="quote-api",
        baseline=12,
        recent=200,
        peak=200,
        change_at="2026-01-01T08:03:00Z",
        direction="up",
        ratio=16.7,
        score=50.0,
    )
    alert = AlertGroup(
        evidence_id="alerts-1",
        alertname="TomcatThreadsExhausted",
        service="quote-api",
        severity="critical",
        status="firing",
        count=1,
        instances=[labels["instance"]],
        first_started="2026-01-01T08:12:00Z",
        summary="Tomcat worker pool of quote-api is exhausted",
        labels={"alertname": "TomcatThreadsExhausted", **labels},
    )
    line = "upstream timed out (110: Operation timed out) while reading response header from upstream, "
    line += 'upstream: "http://10.44.3.21:8080/v3/quote"'
    proxy = LogPattern(
        evidence_id="logs-1",
        service="ingress-nginx",
        level="ERROR",
        template=line,
        count=12,
        first_seen="2026-01-01T08:14:00Z",
        last_seen="2026-01-01T08:25:00Z",
        example=line,
    )
    return Digest(anomalies=[busy], alert_groups=[alert], log_patterns=[proxy])


def test_a_proxy_naming_a_pods_address_names_its_workload() -> None:
    ranking = rank_suspects(_digest(POD))
    names = {s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert "10.44.3.21" not in names
    workload = next(s for s in ranking.ranked if s.service == "quote-api")
    assert [g.alertname for g in workload.alerts] == ["TomcatThreadsExhausted"]
    assert [a.metric for a in workload.anomalies] == ["tomcat_threads_busy_threads"]
    assert "ingress-nginx" in workload.blamed_by
