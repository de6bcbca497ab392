"""Which executor lane serves which tool: signals (alerts, metrics), logs, knowledge (SQL, docs, cases).

Each tool declares its lane beside its source; `LANE_OF_TOOL` is read from the catalog.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.analysts.base import Lane, PlannedCall
from tools.toolbox.catalog import LANE_OF_TOOL

LANES: tuple[Lane, ...] = ("signals", "logs", "knowledge")


def split_by_lane(calls: Sequence[PlannedCall]) -> dict[Lane, list[PlannedCall]]:
    """Group calls by lane in lane order; unknown tools go to the knowledge lane (the toolbox refuses)."""
    lanes: dict[Lane, list[PlannedCall]] = {}
    for call in calls:
        lanes.setdefault(LANE_OF_TOOL.get(call.tool, "knowledge"), []).append(call)
    return {lane: lanes[lane] for lane in LANES if lane in lanes}
