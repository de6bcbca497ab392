"""Conditional-edge functions: a few lines each, reading only state, returning the next node id."""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from graph.nodes.executors.lanes import split_by_lane
from graph.state import DiagnosisState, ExecutorInput


def route_after_router(state: DiagnosisState) -> Literal["planner", "fallback"]:
    return "fallback" if state.get("budget_exhausted") else "planner"


def route_after_planner(state: DiagnosisState) -> list[Send] | Literal["diagnose", "fallback"]:
    """Fan the plan out to the three executor lanes; nothing to gather goes straight to diagnose."""
    if state.get("budget_exhausted"):
        return "fallback"
    lanes = split_by_lane(state.get("plan", []))
    if not lanes:
        return "diagnose"
    return [Send("executors", ExecutorInput(lane=lane, calls=calls)) for lane, calls in lanes.items()]


def route_after_diagnose(state: DiagnosisState) -> Literal["evidence_guard", "fallback"]:
    return "fallback" if state.get("budget_exhausted") or not state.get("draft") else "evidence_guard"


def route_after_evidence_guard(
    state: DiagnosisState,
) -> Literal["semantic_guard", "repair", "fallback"]:
    if not state.get("violations"):
        return "semantic_guard"
    if state.get("repair_count", 0) < state.get("max_repairs", 0):
        return "repair"
    return "fallback"


def route_after_repair(state: DiagnosisState) -> Literal["planner", "evidence_guard", "fallback"]:
    if state.get("budget_exhausted"):
        return "fallback"
    return "planner" if state.get("repair_calls") else "evidence_guard"


def route_after_semantic_guard(state: DiagnosisState) -> Literal["composer", "fallback"]:
    return "fallback" if state.get("fallback_reason") else "composer"
