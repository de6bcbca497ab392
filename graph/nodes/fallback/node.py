"""fallback entry: the safe message and evidence list; the reason stays internal.

`deadline_fallback` is the same answer for a run whose deadline cut the graph short: the runner
takes it from here, so every fallback the graph gives is written in this package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.nodes.fallback.render import render_fallback
from graph.recorder import BUDGET_EXHAUSTED, FALLBACK
from graph.state import DiagnosisState
from tools.base import Evidence


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


def deadline_fallback(items: Sequence[Evidence]) -> dict[str, Any]:
    """The final state of a run stopped by its deadline: the fallback over the evidence it had."""
    return {
        "content": render_fallback(items),
        "outcome": "FALLBACK",
        "termination_reason": BUDGET_EXHAUSTED,
        "fallback_reason": "budget:deadline",
        "budget_exhausted": "deadline",
    }
