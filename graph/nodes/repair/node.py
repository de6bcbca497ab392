"""repair entry: re-draft with the guard's violations, or ask for targeted evidence first."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.analysts.base import BudgetExhausted, RepairRequest
from graph.context import RunContext
from graph.nodes.consult import consult
from graph.state import DiagnosisState


async def node_repair(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    draft = state.get("draft")
    assert draft is not None, "repair runs only after a draft"
    items = ctx.items(state.get("evidence_ids", []))
    digest, now = await ctx.digest_of(items)
    request = RepairRequest(
        route=state["route"],
        draft=draft,
        violations=state.get("violations", []),
        evidence=ctx.refs(items),
        digest=digest,
        now=now,
        remaining_tool_calls=ctx.meter.remaining_tool_calls,
        # Gathering more evidence is allowed once per run; later repairs must re-draft.
        may_gather=state.get("evidence_retry_count", 0) == 0 and ctx.meter.remaining_tool_calls > 0,
    )
    repairs = state.get("repair_count", 0) + 1
    try:
        repair = await consult(ctx, "repair", lambda analyst: analyst.repair(request, ctx.meter))
    except BudgetExhausted as spent:
        return {"budget_exhausted": spent.budget, "repair_count": repairs}
    if repair.calls and request.may_gather:
        return {
            "repair_calls": repair.calls,
            "repair_count": repairs,
            "evidence_retry_count": state.get("evidence_retry_count", 0) + 1,
        }
    return {"draft": repair.draft or draft, "repair_count": repairs}
