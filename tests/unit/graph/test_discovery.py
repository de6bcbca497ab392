"""Discovery merges the typed names each discovery tool reads from its own answer."""

from __future__ import annotations

from typing import Any

from graph.analysts.base import PlannedCall
from graph.nodes.discovery import MAX_LABEL_SETS_PER_METRIC, discover
from graph.nodes.executors.lanes import split_by_lane
from tools.base import Evidence, EvidenceSource, EvidenceStatus


def item(tool: str, data: dict[str, Any], status: EvidenceStatus = EvidenceStatus.OK) -> Evidence:
    return Evidence(
        id=f"{tool}-1",
        source=EvidenceSource.KNOWLEDGE,
        tool=tool,
        title=tool,
        summary="",
        data=data,
        query={},
        status=status,
    )


READ = {
    "metric": "up",
    "kind": "gauge",
    "matchers": {"service": "pay"},
    "reason": "alert PayDown",
    "promql": 'up{service="pay"}',
}


def test_names_from_every_discovery_tool_are_merged() -> None:
    series = [{"metric": "up", "labels": {"service": "pay"}}]
    metrics = {"reads": [READ], "names": ["rps", "up"], "identities": {"job": ["cart"]}}
    found = discover(
        [
            item("list_alerts", {"alerts": [{"labels": {"service": "ledger"}}]}),
            item("list_metrics", metrics),
            item("list_log_streams", {"label": "service", "values": ["relay", "pay"]}),
            item("list_log_streams", {"label": "level", "values": ["error"]}),
            item("list_tables", {"datasource": "orders", "tables": ["t1", "t2"]}),
            item("list_runbooks", {"runbooks": [{"file": "a.md"}, {"file": "a.md"}, {"file": "b.md"}]}),
            item("query_metric", {"series": series}),  # a query names nothing for planning
            item("list_tables", {"datasource": "down", "tables": ["x"]}, EvidenceStatus.ERROR),
        ]
    )

    assert found.metrics == {"up": [{"service": "pay"}, {}], "rps": [{}]}
    assert found.reads == [READ]  # the typed read, as discovery chose it
    assert found.log_services == ["relay", "pay"]
    assert found.tables == {"orders": ["t1", "t2"]}
    assert found.runbooks == ["a.md", "b.md"]
    assert found.services == ["ledger", "pay", "cart", "relay"]  # log services come last


def test_label_sets_per_metric_are_bounded() -> None:
    reads = [{"metric": "up", "matchers": {"pod": str(n)}} for n in range(MAX_LABEL_SETS_PER_METRIC + 5)]

    assert len(discover([item("list_metrics", {"reads": reads})]).metrics["up"]) == MAX_LABEL_SETS_PER_METRIC


def test_instant_promql_runs_in_the_signals_lane() -> None:
    lanes = split_by_lane(
        [PlannedCall(tool="query_promql_instant", args={}), PlannedCall(tool="nope", args={})]
    )

    assert {lane: [c.tool for c in calls] for lane, calls in lanes.items()} == {
        "signals": ["query_promql_instant"],
        "knowledge": ["nope"],
    }
