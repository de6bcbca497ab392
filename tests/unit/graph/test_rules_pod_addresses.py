"""A pod's address is no machine: a proxy's "upstream 10.44.3.21:8080 timed out" beside an alert on
`pod=... instance=10.44.3.21:8081` names the pod's workload, which keeps its own name."""

from __future__ import annotations

from graph.analysts.rules.suspects import rank_suspects
from tests.unit.graph.digest_facts import alert, lines, move
from tools.facts import Digest

POD = {
    "application": "quote-api",
    "job": "quote-api",
    "namespace": "freight",
    "pod": "quote-api-6d8f9c7b54-q7kzt",
    "instance": "10.44.3.21:8081",
}
PROXY = (
    "upstream timed out (110: Operation timed out) while reading response header from upstream, "
    'upstream: "http://10.44.3.21:8080/v3/quote"'
)


def test_a_proxy_naming_a_pods_address_names_its_workload() -> None:
    digest = Digest(
        anomalies=[move("tomcat_threads_busy_threads", "quote-api", "2026-03-01T10:03:00Z", POD)],
        alert_groups=[
            alert(
                "TomcatThreadsExhausted",
                "quote-api",
                "2026-03-01T10:12:00Z",
                POD,
                "Tomcat worker pool of quote-api is exhausted",
            )
        ],
        log_patterns=[lines("ingress-nginx", PROXY, "2026-03-01T10:14:00Z", 12)],
    )
    ranking = rank_suspects(digest)
    names = {s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert "10.44.3.21" not in names
    workload = next(s for s in ranking.ranked if s.service == "quote-api")
    assert [g.alertname for g in workload.alerts] == ["TomcatThreadsExhausted"]
    assert [a.metric for a in workload.anomalies] == ["tomcat_threads_busy_threads"]
    assert "ingress-nginx" in workload.blamed_by
