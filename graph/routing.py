"""Conditional-edge functions: a few lines each, reading only state, returning the next node id."""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from graph.nodes import NodeId
from graph.nodes.executors.lanes import split_by_lane
from graph.state import DiagnosisState, ExecutorInput

# Where the planner may go; declared because its fan-out returns `Send`s, which no annotation names.
AFTER_PLANNER: list[str] = [NodeId.EXECUTORS, NodeId.DIAGNOSE, NodeId.LOOKUP, NodeId.FALLBACK]


def route_after_router(state: DiagnosisState) -> Literal[NodeId.PLANNER, NodeId.FALLBACK]:
    return NodeId.FALLBACK if state.get("budget_exhausted") else NodeId.PLANNER


def route_after_planner(
    state: DiagnosisState,
) -> list[Send] | Literal[NodeId.DIAGNOSE, NodeId.LOOKUP, NodeId.FALLBACK]:
    """Fan the plan out to the three executor lanes; nothing (more) to gather goes to diagnose, or
    to lookup on the lookup route, whose rows are the tool results themselves."""
    if state.get("budget_exhausted"):
        return NodeId.FALLBACK
    lanes = split_by_lane(state.get("plan", []))
    if not lanes:
        return NodeId.LOOKUP if state["route"].route == "lookup" else NodeId.DIAGNOSE
    return [Send(NodeId.EXECUTORS, ExecutorInput(lane=lane, calls=calls)) for lane, calls in lanes.items()]


def route_after_diagnose(state: DiagnosisState) -> Literal[NodeId.EVIDENCE_GUARD, NodeId.FALLBACK]:
    if state.get("budget_exhausted") or not state.get("draft"):
        return NodeId.FALLBACK
    return NodeId.EVIDENCE_GUARD


def route_after_evidence_guard(
    state: DiagnosisState,
) -> Literal[NodeId.SEMANTIC_GUARD, NodeId.REPAIR, NodeId.FALLBACK]:
    if not state.get("violations"):
        return NodeId.SEMANTIC_GUARD
    # A lookup row no tool returned cannot be repaired into one: the answer is refused.
    if state.get("lookup") is None and state.get("repair_count", 0) < state.get("max_repairs", 0):
        return NodeId.REPAIR
    return NodeId.FALLBACK


def route_after_repair(
    state: DiagnosisState,
) -> Literal[NodeId.PLANNER, NodeId.EVIDENCE_GUARD, NodeId.FALLBACK]:
    if state.get("budget_exhausted"):
        return NodeId.FALLBACK
    return NodeId.PLANNER if state.get("repair_calls") else NodeId.EVIDENCE_GUARD


def route_after_semantic_guard(state: DiagnosisState) -> Literal[NodeId.COMPOSER, NodeId.FALLBACK]:
    return NodeId.FALLBACK if state.get("fallback_reason") else NodeId.COMPOSER
