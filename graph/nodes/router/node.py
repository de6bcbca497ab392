"""router entry: ask the analyst where the question goes."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.analysts.base import BudgetExhausted, RouteRequest, Turn
from graph.context import RunContext
from graph.nodes.consult import consult
from graph.state import DiagnosisState


async def node_router(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    request = RouteRequest(
        query=state["query"],
        flow=state.get("flow", "CHAT"),
        history=[Turn.from_mapping(turn) for turn in state.get("history", [])],
        services=state.get("services", []),
    )
    try:
        route = await consult(ctx, "route", lambda analyst: analyst.route(request, ctx.meter))
    except BudgetExhausted as spent:
        return {"budget_exhausted": spent.budget}
    return {"route": route, "plan_round": 0, "repair_count": 0, "evidence_retry_count": 0}
