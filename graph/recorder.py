"""How the graph reports: `RunObserver` (the protocol api implements) and `TraceRecorder`.

The recorder forwards events to the observer (a status is a code; its public wording and its cap are
api's) and compacts them into `orchestration_trace`: transitions that really happened, timings and
counts; never prompts, reasoning, raw output or state.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from typing import Any, Protocol

from graph.nodes import NodeId
from tools.base import Evidence

TRACE_VERSION = 1
MAX_TRANSITIONS = 200
MAX_DEGRADATIONS = 20
MAX_SUMMARY_CHARS = 200

# Termination reasons of a run, as stored in the trace.
COMPOSED = "COMPOSED"
FALLBACK = "FALLBACK"
BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
FAILED = "FAILED"
CANCELLED = "CANCELLED"

# The status code a node reports when it starts (api words and bounds them for clients).
NODE_STATUS: Mapping[str, str] = {
    NodeId.ROUTER: "ROUTING",
    NodeId.PLANNER: "PLANNING",
    NodeId.EXECUTORS: "COLLECTING_EVIDENCE",
    NodeId.DIAGNOSE: "DIAGNOSING",
    NodeId.LOOKUP: "COMPOSING",
    NodeId.EVIDENCE_GUARD: "VERIFYING",
    NodeId.SEMANTIC_GUARD: "VERIFYING",
    NodeId.REPAIR: "REPAIRING",
    NodeId.COMPOSER: "COMPOSING",
    NodeId.FALLBACK: "COMPOSING",
}


class RunObserver(Protocol):
    """Receives a run's bounded events; api wires it to the run store and the SSE stream."""

    async def on_status(self, code: str) -> None: ...
    async def on_node(self, node: str, status: str, duration_ms: float, summary: str) -> None: ...
    async def on_tool(self, evidence: Evidence, args: Mapping[str, Any]) -> None: ...


class SilentObserver:
    """An observer that drops every event (CLI and evaluation runs)."""

    async def on_status(self, code: str) -> None:
        return None

    async def on_node(self, node: str, status: str, duration_ms: float, summary: str) -> None:
        return None

    async def on_tool(self, evidence: Evidence, args: Mapping[str, Any]) -> None:
        return None


class TraceRecorder:
    """Forwards node, status and tool events to an observer and compacts them into the trace."""

    def __init__(self, observer: RunObserver, *, max_trace_bytes: int = 65_536) -> None:
        self._observer = observer
        self._max_trace_bytes = max_trace_bytes
        self._path: list[str] = []
        self._open: dict[str, int] = {}
        self._timings: dict[str, float] = {}
        self._degradations: list[dict[str, str]] = []
        self._last_status: str | None = None
        self.tool_calls = 0

    async def node_started(self, node: str) -> None:
        """Record entering a node; concurrent starts of one node count as one step."""
        if self._open.get(node, 0) == 0 and (not self._path or self._path[-1] != node):
            self._path.append(node)
        self._open[node] = self._open.get(node, 0) + 1
        code = NODE_STATUS.get(node)
        if code and code != self._last_status:  # a repeated code says nothing new
            self._last_status = code
            await self._observer.on_status(code)

    async def node_finished(self, node: str, status: str, duration_ms: float, summary: str) -> None:
        """Record leaving a node and forward a bounded summary."""
        self._close(node, duration_ms)
        await self._observer.on_node(node, status, round(duration_ms, 3), summary[:MAX_SUMMARY_CHARS])

    def node_interrupted(self, node: str, duration_ms: float) -> None:
        """Record a node cut short by cancellation; synchronous, so it is safe while cancelled."""
        self._close(node, duration_ms)

    async def on_tool(self, evidence: Evidence, args: Mapping[str, Any]) -> None:
        self.tool_calls += 1
        await self._observer.on_tool(evidence, args)

    def note_degradation(self, step: str, reason: str) -> None:
        if len(self._degradations) < MAX_DEGRADATIONS:
            self._degradations.append({"step": step, "degraded_to": "rules", "reason": reason})

    @property
    def degradations(self) -> list[dict[str, str]]:
        return list(self._degradations)

    @property
    def path(self) -> list[str]:
        return list(self._path)

    def trace(
        self,
        termination_reason: str,
        *,
        finished: bool,
        degraded: bool = False,
        evidence_retry_count: int = 0,
        repair_count: int = 0,
        model_calls: int = 0,
        tokens: int = 0,
    ) -> dict[str, Any]:
        """The compact orchestration trace; `finished` adds the edge to `__end__`."""
        steps = ["__start__", *self._path] + (["__end__"] if finished else [])
        transitions = [{"from": a, "to": b} for a, b in itertools.pairwise(steps)]
        trace: dict[str, Any] = {
            "version": TRACE_VERSION,
            "transitions": transitions[:MAX_TRANSITIONS],
            "path": self._path[:MAX_TRANSITIONS],
            "final_node": self._path[-1] if self._path else None,
            "termination_reason": termination_reason,
            "degraded": degraded,
            "evidence_retry_count": evidence_retry_count,
            "repair_count": repair_count,
            "node_timings_ms": {node: round(ms, 3) for node, ms in self._timings.items()},
            "model_calls": model_calls,
            "tokens": tokens,
            "tool_calls": self.tool_calls,
            "degradations": self.degradations,
        }
        return self._bounded(trace)

    def _close(self, node: str, duration_ms: float) -> None:
        self._open[node] = max(0, self._open.get(node, 0) - 1)
        self._timings[node] = self._timings.get(node, 0.0) + duration_ms

    def _bounded(self, trace: dict[str, Any]) -> dict[str, Any]:
        # Drop the oldest detail first; the counts and the termination reason always survive.
        while len(json.dumps(trace)) > self._max_trace_bytes and trace["transitions"]:
            trace["transitions"] = trace["transitions"][len(trace["transitions"]) // 2 + 1 :]
            trace["path"] = trace["path"][len(trace["path"]) // 2 + 1 :]
            trace["truncated"] = True
        return trace
