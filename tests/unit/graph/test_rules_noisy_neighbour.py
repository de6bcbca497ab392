"""A workload slowed by CPU pressure on its node is explained by another workload's pods on that node
(its container agent's address, or its `node` label) whose CPU use rose before the pressure began."""

from __future__ import annotations

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, move
from tools.facts import Digest

AGENT = "10.42.3.17:10250"


def _digest(neighbour_agent: str, neighbour_moved: str) -> Digest:
    search = {"job": "kubelet", "instance": AGENT, "namespace": "search", "pod": "search-api-6b7f9d4c8-kx2lp"}
    search |= {"container": "search-api"}
    batch = {"job": "kubelet", "instance": neighbour_agent, "namespace": "analytics"}
    batch |= {"pod": "report-builder-30429180-dhqcn", "container": "report-builder"}
    return Digest(
        anomalies=[
            move(
                "rate(container_pressure_cpu_waiting_seconds_total)",
                "search-api",
                "2026-03-01T10:27:00Z",
                search,
            ),
            move("rate(container_cpu_cfs_throttled_periods_total)", "report-builder", neighbour_moved, batch),
        ],
        alert_groups=[
            alert(
                "SearchApiLatencyHigh",
                "search-api",
                "2026-03-01T10:30:00Z",
                {"job": "search-api", "namespace": "search"},
                "search p99 above 800 ms",
            )
        ],
    )


def _root(digest: Digest) -> str | None:
    draft = diagnose_digest(ask("Why is the search API slow?", digest))
    return draft.root_cause.service if draft.root_cause else None


def test_the_pods_that_took_the_nodes_cpu_first_are_the_cause() -> None:
    assert _root(_digest(AGENT, "2026-03-01T10:02:00Z")) == "report-builder"


def test_pods_on_another_node_or_that_moved_later_are_not() -> None:
    assert _root(_digest("10.42.3.99:10250", "2026-03-01T10:02:00Z")) == "search-api"
    assert _root(_digest(AGENT, "2026-03-01T10:40:00Z")) == "search-api"
