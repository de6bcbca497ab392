"""diagnose entry: the analyst drafts a diagnosis (or a short answer) from the digest."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.analysts.base import BudgetExhausted, DiagnoseRequest
from graph.context import RunContext
from graph.nodes.consult import consult
from graph.nodes.discovery import discover
from graph.state import DiagnosisState


async def node_diagnose(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    items = ctx.items(state.get("evidence_ids", []))
    digest, now = await ctx.digest_of(items)
    request = DiagnoseRequest(
        route=state["route"],
        evidence=ctx.refs(items),
        digest=digest,
        now=now,
        services=discover(items).services,
    )
    try:
        draft = await consult(ctx, "diagnose", lambda analyst: analyst.diagnose(request, ctx.meter))
    except BudgetExhausted as spent:
        return {"budget_exhausted": spent.budget, "draft": None}
    # The route decides the shape of the answer, whatever the analyst labelled it.
    kind = "answer" if request.route.route == "simple" else "diagnosis"
    return {"draft": draft.model_copy(update={"kind": kind})}
