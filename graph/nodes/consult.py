"""Asks the run's analyst for one step; a model failure degrades that step to the rule-based analyst."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from graph.analysts.base import Analyst, AnalystUnavailable
from graph.context import RunContext

T = TypeVar("T")
log = logging.getLogger(__name__)


async def consult(ctx: RunContext, step: str, ask: Callable[[Analyst], Awaitable[T]]) -> T:
    """Run `ask` on the primary analyst, or on the rules when the model could not answer.

    BudgetExhausted is not caught: the node turns it into the fallback route.
    """
    try:
        return await ask(ctx.analyst)
    except AnalystUnavailable as failure:
        if ctx.analyst is ctx.rules:
            raise
        log.warning("run %s: %s step degraded to rules (%s)", ctx.run_id, step, failure.reason)
        ctx.recorder.note_degradation(step, failure.reason)
        return await ask(ctx.rules)
