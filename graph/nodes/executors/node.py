"""executors entry: one module run three ways (signals, logs, knowledge), each on its slice of the plan."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.nodes.executors.collect import collect
from graph.state import ExecutorInput


async def node_executors(state: ExecutorInput, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ids, exhausted = await collect(runtime.context, state["calls"])
    update: dict[str, Any] = {"evidence_ids": ids}
    if exhausted:
        update["budget_exhausted"] = exhausted
    return update
