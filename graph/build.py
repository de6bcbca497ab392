"""Builds the one diagnosis StateGraph: only nodes and edges, in the order a run meets them.

Compiled once at start-up without a checkpointer and shared by all runs. Nodes carry no RetryPolicy:
retries live in one layer (the model client's `max_retries`, the toolbox's own bounds), and a node that
still raises fails the run, which the runner reports as a typed failure.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.context import RunContext
from graph.nodes import JOIN_LANES, NodeId
from graph.nodes.composer import node_composer
from graph.nodes.diagnose import node_diagnose
from graph.nodes.evidence_guard import node_evidence_guard
from graph.nodes.executors import node_executors
from graph.nodes.fallback import node_fallback
from graph.nodes.lookup import node_lookup
from graph.nodes.observed import NodeEntry, observed
from graph.nodes.planner import node_planner
from graph.nodes.repair import node_repair
from graph.nodes.router import node_router
from graph.nodes.semantic_guard import node_semantic_guard
from graph.routing import (
    AFTER_PLANNER,
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
    """router → planner → executors (3 lanes) → planner as their join (↺ next round) → diagnose
    (or lookup, on the lookup route) → evidence_guard → (repair ↺ | semantic_guard) → composer | fallback."""
    g = StateGraph(DiagnosisState, context_schema=RunContext)
    add_node: Any = g.add_node  # its overloads do not type a wrapped async entry

    def add(node: NodeId, entry: NodeEntry[Any], **options: Any) -> None:
        """One timeout for every node; each reports to the run's recorder under its id."""
        add_node(node, observed(node, entry, timeout_s=node_timeout_s), **options)

    add(NodeId.ROUTER, node_router)
    add(NodeId.PLANNER, node_planner)
    add(NodeId.EXECUTORS, node_executors, input_schema=ExecutorInput)
    add(NodeId.DIAGNOSE, node_diagnose)
    add(NodeId.LOOKUP, node_lookup)
    add(NodeId.EVIDENCE_GUARD, node_evidence_guard)
    add(NodeId.REPAIR, node_repair)
    add(NodeId.SEMANTIC_GUARD, node_semantic_guard)
    add(NodeId.COMPOSER, node_composer)
    add(NodeId.FALLBACK, node_fallback)

    g.add_edge(START, NodeId.ROUTER)
    g.add_conditional_edges(NodeId.ROUTER, route_after_router)
    g.add_conditional_edges(NodeId.PLANNER, route_after_planner, AFTER_PLANNER)
    # The join: every lane of a round returns here, and the planner runs once after the last one.
    g.add_edge(NodeId.EXECUTORS, JOIN_LANES)
    g.add_conditional_edges(NodeId.DIAGNOSE, route_after_diagnose)
    g.add_edge(NodeId.LOOKUP, NodeId.EVIDENCE_GUARD)
    g.add_conditional_edges(NodeId.EVIDENCE_GUARD, route_after_evidence_guard)
    g.add_conditional_edges(NodeId.REPAIR, route_after_repair)
    g.add_conditional_edges(NodeId.SEMANTIC_GUARD, route_after_semantic_guard)
    g.add_edge(NodeId.COMPOSER, END)
    g.add_edge(NodeId.FALLBACK, END)
    return g.compile()
