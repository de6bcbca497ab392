"""Which executor lane serves which tool: signals (alerts, metrics), logs, knowledge (SQL, docs, cases)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graph.analysts.base import Lane, PlannedCall

LANE_OF_TOOL: Mapping[str, Lane] = {
    "list_alerts": "signals",
    "list_metrics": "signals",
    "query_metric": "signals",
    "query_promql": "signals",
    "list_log_streams": "logs",
    "query_logs": "logs",
    "list_tables": "knowledge",
    "query_mysql": "knowledge",
    "list_runbooks": "knowledge",
    "search_runbooks": "knowledge",
    "search_cases": "knowledge",
}

LANES: tuple[Lane, ...] = ("signals", "logs", "knowledge")


def split_by_lane(calls: Sequence[PlannedCall]) -> dict[Lane, list[PlannedCall]]:
    """Group calls by lane in lane order; unknown tools go to the knowledge lane (the toolbox refuses)."""
    lanes: dict[Lane, list[PlannedCall]] = {}
    for call in calls:
        lanes.setdefault(LANE_OF_TOOL.get(call.tool, "knowledge"), []).append(call)
    return {lane: lanes[lane] for lane in LANES if lane in lanes}
