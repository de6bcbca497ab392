"""Builds the one diagnosis StateGraph; it reads like the diagram in DESIGN.md.

Compiled once at start-up without a checkpointer and shared by all runs. Nodes carry no RetryPolicy:
retries live in one layer (the model client's `max_retries`, the toolbox's own bounds), and a node that
still raises fails the run, which the runner reports as a typed failure.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.context import RunContext
from graph.nodes.composer import node_composer
from graph.nodes.diagnose import node_diagnose
from graph.nodes.evidence_guard import node_evidence_guard
from graph.nodes.executors import node_executors
from graph.nodes.fallback import node_fallback
from graph.nodes.observed import observed
from graph.nodes.planner import node_planner
from graph.nodes.repair import node_repair
from graph.nodes.router import node_router
from graph.nodes.semantic_guard import node_semantic_guard
from graph.routing import (
    route_after_diagnose,
    route_after_evidence_guard,
    route_after_planner,
    route_after_repair,
    route_after_router,
    route_after_semantic_guard,
)
from graph.state import DiagnosisState, ExecutorInput

DiagnosisGraph = CompiledStateGraph[DiagnosisState, RunContext, DiagnosisState, DiagnosisState]


def build_graph(*, node_timeout_s: float = 60.0) -> DiagnosisGraph:
    """router → planner → executors (3 lanes) → diagnose → evidence_guard → (repair ↺ | semantic_guard)
    → composer | fallback; the planner also joins the lanes and plans the next round."""
    g = StateGraph(DiagnosisState, context_schema=RunContext)
    add: Any = g.add_node  # one timeout for every node; all are async
    add("router", observed("router", node_router), timeout=node_timeout_s)
    add("planner", observed("planner", node_planner), timeout=node_timeout_s)
    add(
        "executors",
        observed("executors", node_executors),
        input_schema=ExecutorInput,
        timeout=node_timeout_s,
    )
    add("diagnose", observed("diagnose", node_diagnose), timeout=node_timeout_s)
    add("evidence_guard", observed("evidence_guard", node_evidence_guard), timeout=node_timeout_s)
    add("repair", observed("repair", node_repair), timeout=node_timeout_s)
    add("semantic_guard", observed("semantic_guard", node_semantic_guard), timeout=node_timeout_s)
    add("composer", observed("composer", node_composer), timeout=node_timeout_s)
    add("fallback", observed("fallback", node_fallback), timeout=node_timeout_s)

    g.add_edge(START, "router")
    g.add_conditional_edges("router", route_after_router)
    g.add_conditional_edges("planner", route_after_planner, ["executors", "diagnose", "fallback"])
    g.add_edge("executors", "planner")  # the join: planner runs once after all three lanes
    g.add_conditional_edges("diagnose", route_after_diagnose)
    g.add_conditional_edges("evidence_guard", route_after_evidence_guard)
    g.add_conditional_edges("repair", route_after_repair)
    g.add_conditional_edges("semantic_guard", route_after_semantic_guard)
    g.add_edge("composer", END)
    g.add_edge("fallback", END)
    return g.compile()
