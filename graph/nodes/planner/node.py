"""planner entry: discovery first, then targeted calls after discovery, or the calls a repair asked for.

It is also the join of the executor lanes (`graph.nodes.JOIN_LANES`): every lane of a round returns
here, and after the last round it plans nothing and the run moves on to diagnose.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from langgraph.runtime import Runtime

from graph.analysts.base import LOOKUP_ROUNDS, Analyst, BudgetExhausted, Plan, PlannedCall, PlanRequest
from graph.context import RunContext
from graph.nodes.consult import consult
from graph.nodes.discovery import discover
from graph.nodes.planner.shape import call_key, shape_plan
from graph.state import DiagnosisState

MAX_ROUNDS = 3


async def node_planner(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    if requested := state.get("repair_calls"):
        return {**_planned(ctx, state, requested), "repair_calls": []}
    next_round = state.get("plan_round", 0) + 1
    if next_round > _rounds(state):
        return {"plan": []}
    try:
        plan = await consult(ctx, "plan", partial(_plan, ctx, state, next_round))
    except BudgetExhausted as spent:
        return {"budget_exhausted": spent.budget, "plan": []}
    return {**_planned(ctx, state, plan.calls), "plan_round": next_round}


async def _plan(ctx: RunContext, state: DiagnosisState, next_round: int, analyst: Analyst) -> Plan:
    # The request is built per ask and held by no frame here: an analyst that turns it into a model
    # prompt can let it go (digest, refs, discovery) while it waits on the model.
    return await analyst.plan(await _request(ctx, state, next_round), ctx.meter)


async def _request(ctx: RunContext, state: DiagnosisState, next_round: int) -> PlanRequest:
    items = ctx.items(state.get("evidence_ids", []))
    # Not kept: the round's evidence grows right after it, and the digest is what a held stream
    # would otherwise keep alive while the model plans.
    digest, now = await ctx.digest_of(items, keep=False)
    return PlanRequest(
        route=state["route"],
        round=next_round,
        tool_names=ctx.toolbox.tool_names(),
        datasources=ctx.toolbox.datasources(),
        remaining_tool_calls=ctx.meter.remaining_tool_calls,
        evidence=ctx.refs(items),
        digest=digest,
        discovery=discover(items),
        now=now,
    )


def _planned(ctx: RunContext, state: DiagnosisState, calls: list[PlannedCall]) -> dict[str, Any]:
    shaped = shape_plan(calls, tool_names=ctx.toolbox.tool_names(), already_made=state.get("calls_made", []))
    if len(shaped) > ctx.meter.remaining_tool_calls:
        # Analysts plan within the budget they are told; a plan that cannot fit means the
        # evidence this question needs is out of reach: the run ends in BUDGET_EXHAUSTED.
        return {"plan": [], "budget_exhausted": "tool_calls"}
    return {"plan": shaped, "calls_made": [call_key(c.tool, c.args) for c in shaped]}


def _rounds(state: DiagnosisState) -> int:
    """A diagnosis plans discovery, targeted calls, then follow-ups; a lookup its query, then (when it
    matched nothing) a wider read of it; a simple question one round."""
    route = state["route"].route
    return MAX_ROUNDS if route == "complex" else LOOKUP_ROUNDS if route == "lookup" else 1
