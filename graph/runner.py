"""Owns each graph run in its own asyncio task, so cancelling a run cancels its tool and model calls.

The SSE layer must not iterate the graph itself (STACK-NOTES 1.4): it starts a run here, awaits
`RunHandle.result()`, and calls `RunHandle.cancel()` on disconnect.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from langgraph.errors import GraphRecursionError, NodeTimeoutError

from graph.analysts.base import Analyst
from graph.build import DiagnosisGraph
from graph.context import (
    DigestBuilder,
    EvidenceBoundary,
    GraphBudgets,
    RunContext,
    RunEvidenceStore,
    RunMeter,
)
from graph.nodes.fallback.render import render_fallback
from graph.recorder import BUDGET_EXHAUSTED, CANCELLED, FAILED, RunObserver, TraceRecorder
from graph.state import DiagnosisState
from tools.redaction import redact, redact_data

log = logging.getLogger(__name__)
Flow = Literal["CHAT", "AI_OPS"]


@dataclass(frozen=True, slots=True)
class RunRequest:
    """One question to diagnose; `history` holds prior turns `{query, summary, root_cause_service}`.
    `principal` owns the run (None without authentication): it scopes the past cases it may read."""

    run_id: str
    session_id: str
    query: str
    history: list[dict[str, Any]] = field(default_factory=list)
    flow: Flow = "CHAT"
    services: list[str] = field(default_factory=list)
    principal: str | None = None


@dataclass(frozen=True, slots=True)
class RunParts:
    """What a run uses: shared analysts and toolbox, this run's evidence store, budgets, clock."""

    analyst: Analyst
    rules: Analyst
    toolbox: EvidenceBoundary
    evidence: RunEvidenceStore  # a fresh `RunEvidence(budget_bytes=...)` per run
    digest: DigestBuilder
    budgets: GraphBudgets = field(default_factory=GraphBudgets)
    clock: Callable[[], float] = time.monotonic


@dataclass(frozen=True, slots=True)
class RunResult:
    """What a finished run produced; `content` is the released `{content_type, payload}`."""

    outcome: Literal["SUCCESS", "FALLBACK"]
    content: dict[str, Any]
    route: str | None
    trace: dict[str, Any]
    self_evaluation: dict[str, Any]
    degraded: bool
    model_calls: int
    tokens: int
    tool_calls: int


class RunFailed(Exception):
    """A run that ended without an answer; `code` is stable and safe to show."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class RunCancelled(RunFailed):
    """The run was cancelled (client disconnect, shutdown); `reason` says by whom."""

    def __init__(self, reason: str) -> None:
        super().__init__("CANCELLED")
        self.reason = reason


class DiagnosisRunner:
    """Starts runs of the one compiled graph; every run gets its own context, meter and recorder."""

    def __init__(
        self,
        graph: DiagnosisGraph,
        *,
        recursion_limit: int = 60,
        max_status_events: int = 64,
        max_trace_bytes: int = 65_536,
        cancel_grace_s: float = 5.0,
    ) -> None:
        self._graph = graph
        self._recursion_limit = recursion_limit
        self._max_status_events = max_status_events
        self._max_trace_bytes = max_trace_bytes
        self._cancel_grace_s = cancel_grace_s

    def start(self, request: RunRequest, parts: RunParts, observer: RunObserver) -> RunHandle:
        """Start the run in its own task; the deadline covers the whole graph."""
        recorder = TraceRecorder(
            observer,
            max_status_events=self._max_status_events,
            max_trace_bytes=self._max_trace_bytes,
        )
        context = RunContext(
            run_id=request.run_id,
            session_id=request.session_id,
            flow=request.flow,
            analyst=parts.analyst,
            rules=parts.rules,
            toolbox=parts.toolbox,
            evidence=parts.evidence,
            digest=parts.digest,
            recorder=recorder,
            budgets=parts.budgets,
            meter=RunMeter(parts.budgets),
            clock=parts.clock,
        )
        return RunHandle(self, request, context)

    async def _run(self, request: RunRequest, ctx: RunContext) -> RunResult:
        state: DiagnosisState = {
            # A pasted log line or config may spell a secret: the analysts (a model) see it masked.
            "query": redact(request.query),
            "history": [redact_data(turn) for turn in request.history],
            "services": request.services,
            "flow": request.flow,
            "max_repairs": ctx.budgets.max_repairs,
            "plan_round": 0,
            "repair_count": 0,
            "evidence_retry_count": 0,
        }
        config: Any = {"recursion_limit": self._recursion_limit}
        try:
            async with asyncio.timeout(ctx.budgets.deadline_s) as deadline:
                final: dict[str, Any] = await self._graph.ainvoke(state, config, context=ctx)
        except TimeoutError:
            if not deadline.expired():
                raise
            log.warning("run %s: deadline of %ss reached", request.run_id, ctx.budgets.deadline_s)
            return _deadline_result(ctx)
        except GraphRecursionError:
            log.error("run %s: recursion limit reached", request.run_id)
            raise RunFailed("RECURSION_LIMIT") from None
        except NodeTimeoutError as timeout:
            log.error("run %s: node %s timed out", request.run_id, timeout.node)
            raise RunFailed("NODE_TIMEOUT") from None
        return _result(final, ctx)


class RunHandle:
    """One run in flight: await its result, cancel it, or read its partial trace."""

    def __init__(self, runner: DiagnosisRunner, request: RunRequest, ctx: RunContext) -> None:
        self.run_id = request.run_id
        self._ctx = ctx
        self._grace_s = runner._cancel_grace_s
        self._cancel_reason: str | None = None
        self._failure: str | None = None
        self._task = asyncio.create_task(self._own(runner, request), name=f"run-{request.run_id}")

    async def _own(self, runner: DiagnosisRunner, request: RunRequest) -> RunResult:
        try:
            return await runner._run(request, self._ctx)
        except asyncio.CancelledError:
            raise
        except RunFailed as failed:
            self._failure = failed.code
            raise
        except Exception:
            # The outer edge of a run: log with the run id, report only a stable code.
            log.exception("run %s failed", request.run_id)
            self._failure = "GRAPH_FAILED"
            raise RunFailed("GRAPH_FAILED") from None

    @property
    def done(self) -> bool:
        return self._task.done()

    async def result(self) -> RunResult:
        """The run's result; raises RunFailed (or RunCancelled) with a safe code."""
        try:
            # Shielded: only `cancel()` ends a run, so the reason is always known.
            return await asyncio.shield(self._task)
        except asyncio.CancelledError:
            if self._task.cancelled() and self._cancel_reason is not None:
                raise RunCancelled(self._cancel_reason) from None
            raise

    async def cancel(self, reason: str = "CANCELLED") -> None:
        """Cancel the run and its in-flight calls; idempotent, waits a bounded grace period."""
        if self._task.done():
            return
        self._cancel_reason = self._cancel_reason or reason
        self._task.cancel()  # requested synchronously, so it holds even if this await is cut short
        with anyio.CancelScope(shield=True), anyio.move_on_after(self._grace_s):
            await asyncio.wait({self._task})

    def partial_trace(self) -> dict[str, Any]:
        """The trace of what happened so far: only transitions that really occurred."""
        if self._cancel_reason is not None:
            reason = CANCELLED
        elif self._failure is not None:
            reason = FAILED
        else:
            reason = "RUNNING"
        return _trace(self._ctx, reason, finished=False)


def _result(final: dict[str, Any], ctx: RunContext) -> RunResult:
    outcome: Literal["SUCCESS", "FALLBACK"] = "FALLBACK" if final.get("outcome") == "FALLBACK" else "SUCCESS"
    degradations = ctx.recorder.degradations
    degraded = outcome == "FALLBACK" or bool(degradations)
    route = final.get("route")
    trace = _trace(
        ctx,
        final.get("termination_reason", FAILED),
        finished=True,
        degraded=degraded,
        evidence_retry_count=final.get("evidence_retry_count", 0),
        repair_count=final.get("repair_count", 0),
    )
    evaluation = {
        "evidence_guard": final.get("guard_report"),
        "semantic_guard": final.get("semantic_report"),
        "fallback_reason": final.get("fallback_reason"),  # internal: stored, never streamed
        "budget_exhausted": final.get("budget_exhausted"),
        "degradations": degradations,
    }
    return RunResult(
        outcome=outcome,
        # The answer is written from masked evidence, but a model may still echo a secret (from the
        # question, or spelled out itself): what leaves the graph for the client and the store is masked.
        content=redact_data(final["content"]),
        route=route.route if route is not None else None,
        trace=trace,
        self_evaluation=evaluation,
        degraded=degraded,
        model_calls=ctx.meter.model_calls,
        tokens=ctx.meter.tokens,
        tool_calls=ctx.recorder.tool_calls,
    )


def _deadline_result(ctx: RunContext) -> RunResult:
    trace = _trace(ctx, BUDGET_EXHAUSTED, finished=False, degraded=True)
    return RunResult(
        outcome="FALLBACK",
        content=redact_data(render_fallback(ctx.evidence.all())),
        route=None,
        trace=trace,
        self_evaluation={"fallback_reason": "budget:deadline", "budget_exhausted": "deadline"},
        degraded=True,
        model_calls=ctx.meter.model_calls,
        tokens=ctx.meter.tokens,
        tool_calls=ctx.recorder.tool_calls,
    )


def _trace(ctx: RunContext, reason: str, *, finished: bool, **counts: Any) -> dict[str, Any]:
    return ctx.recorder.trace(
        reason,
        finished=finished,
        model_calls=ctx.meter.model_calls,
        tokens=ctx.meter.tokens,
        **counts,
    )
