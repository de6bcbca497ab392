"""Runs one lane's tool calls concurrently through the tool boundary and reports each one."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from graph.analysts.base import BudgetExhausted, PlannedCall
from graph.context import RunContext
from tools.base import Evidence


async def collect(ctx: RunContext, calls: Sequence[PlannedCall]) -> tuple[list[str], str | None]:
    """Evidence ids of the calls made, in plan order, and the budget that stopped the lane (if any)."""
    admitted: list[PlannedCall] = []
    exhausted: str | None = None
    for call in calls:
        try:
            ctx.meter.charge_tool_call()
        except BudgetExhausted as spent:
            exhausted = spent.budget
            break
        admitted.append(call)
    results = await asyncio.gather(*(_one(ctx, call) for call in admitted))
    return [evidence.id for evidence in results], exhausted


async def _one(ctx: RunContext, call: PlannedCall) -> Evidence:
    # The toolbox never raises for bad arguments or a failing backend: it returns an evidence status.
    evidence = await ctx.toolbox.call(call.tool, call.args, ctx.evidence)
    await ctx.recorder.on_tool(evidence, call.args)
    return evidence
