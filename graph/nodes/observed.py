"""Wraps each node entry: its start, end, timing and a bounded summary reach the recorder, and it
runs within the node timeout.

The timeout is a scope in the node's own task, not LangGraph's per-node `timeout=`, which runs every
node in a task of its own beside a watchdog task: two tasks and their contexts per node, held for as
long as a node waits on a model (about 11 KB per open stream, see bench/README.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.nodes import NodeId

S = TypeVar("S", bound=Mapping[str, Any])
NodeEntry = Callable[[S, Runtime[RunContext]], Awaitable[dict[str, Any]]]


class NodeTimedOut(Exception):
    """A node ran longer than the node timeout; `node` is its id."""

    def __init__(self, node: str, timeout_s: float) -> None:
        super().__init__(f"node {node} ran longer than {timeout_s}s")
        self.node = node


def observed(node_id: NodeId, entry: NodeEntry[S], *, timeout_s: float) -> NodeEntry[S]:
    """The same entry, bounded by `timeout_s` and reporting to the run's recorder around every call;
    the trace step is the node id."""
    node = node_id.value

    async def run(state: S, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        started = ctx.clock()
        await ctx.recorder.node_started(node)
        try:
            async with asyncio.timeout(timeout_s) as bound:
                update = await entry(state, runtime)
        except TimeoutError:
            expired = bound.expired()  # else a bound inside the node raised it: a failure like any other
            summary = "timed out" if expired else "failed"
            await ctx.recorder.node_finished(node, "error", _ms_since(ctx, started), summary)
            if expired:
                raise NodeTimedOut(node, timeout_s) from None
            raise
        except asyncio.CancelledError:
            ctx.recorder.node_interrupted(node, _ms_since(ctx, started))
            raise
        except Exception:
            await ctx.recorder.node_finished(node, "error", _ms_since(ctx, started), "failed")
            raise
        await ctx.recorder.node_finished(node, "ok", _ms_since(ctx, started), describe(update))
        return update

    run.__name__ = f"node_{node}"
    return run


def describe(update: Mapping[str, Any]) -> str:
    """A short safe summary of a node's update: counts and codes, never content."""
    parts: list[str] = []
    if route := update.get("route"):
        parts.append(f"route={route.route}")
    if "plan" in update:
        parts.append(f"planned_calls={len(update['plan'])}")
    if "evidence_ids" in update:
        parts.append(f"evidence={len(update['evidence_ids'])}")
    if "violations" in update:
        parts.append(f"violations={len(update['violations'])}")
    if update.get("budget_exhausted"):
        parts.append(f"budget_exhausted={update['budget_exhausted']}")
    if "termination_reason" in update:
        parts.append(f"termination={update['termination_reason']}")
    return ", ".join(parts) or "done"


def _ms_since(ctx: RunContext, started: float) -> float:
    return (ctx.clock() - started) * 1000.0
