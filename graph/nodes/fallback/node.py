"""fallback entry: the safe message and evidence list; the reason stays internal."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.nodes.fallback.render import render_fallback
from graph.recorder import BUDGET_EXHAUSTED, FALLBACK
from graph.state import DiagnosisState


async def node_fallback(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    exhausted = state.get("budget_exhausted")
    reason = state.get("fallback_reason") or (
        f"budget:{exhausted}" if exhausted else "evidence_guard:repairs_exhausted"
    )
    return {
        "content": render_fallback(runtime.context.items()),
        "outcome": "FALLBACK",
        "termination_reason": BUDGET_EXHAUSTED if exhausted else FALLBACK,
        "fallback_reason": reason,
    }
