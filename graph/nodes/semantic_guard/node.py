"""semantic_guard entry: a last check of the text that would be released; rejection goes to fallback."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.nodes.semantic_guard.checks import SemanticVerdict, check_release
from graph.nodes.semantic_guard.lookup import check_lookup_release
from graph.state import DiagnosisState


async def node_semantic_guard(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    draft = state.get("draft")
    forbidden = runtime.context.forbidden_lines
    if (lookup := state.get("lookup")) is not None:
        verdict = check_lookup_release(lookup, forbidden)
    else:
        verdict = check_release(draft, forbidden) if draft else SemanticVerdict(False, "no_draft")
    update: dict[str, Any] = {"semantic_report": verdict.report()}
    if not verdict.ok:
        update["fallback_reason"] = verdict.reason
    return update
