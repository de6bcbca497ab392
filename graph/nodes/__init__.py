"""The graph's nodes: one folder per node id, each with a thin `node.py` entry and its logic beside it.

`NodeId` is the one register of those ids: the graph's nodes and edges, the routing functions and the
trace steps all spell a node through it, and `tests/unit/graph/test_diagram.py` holds the frontend's
drawing of the graph to the same ids and edges.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class NodeId(StrEnum):
    """A node of the diagnosis graph; its value is the graph id, the folder name and the trace step."""

    ROUTER = "router"
    PLANNER = "planner"
    EXECUTORS = "executors"
    DIAGNOSE = "diagnose"
    LOOKUP = "lookup"
    EVIDENCE_GUARD = "evidence_guard"
    REPAIR = "repair"
    SEMANTIC_GUARD = "semantic_guard"
    COMPOSER = "composer"
    FALLBACK = "fallback"


# The planner's second role: it is also the join of the executor lanes. Every lane of a round
# returns to it, it runs once when the last one has finished, and plans the next round or nothing
# (then the run moves on to diagnose). A diagnosis passes through it four times: from the router
# (round 1), then as the join after each of three rounds (planning rounds 2 and 3, then nothing).
# The trace keeps the one step name "planner" for both roles.
JOIN_LANES: Final = NodeId.PLANNER
