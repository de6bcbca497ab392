"""Runs the one compiled graph for a request: state in, `RunResult` (or a safe `RunFailed`) out.

A run is a plain awaited call (`GraphRun.result()`) in its caller's task; api's run lifecycle owns
that task and cancels the run by cancelling it. A run stopped by its deadline ends in the fallback
node's answer (`graph.nodes.fallback.deadline_fallback`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.errors import GraphRecursionError

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
from graph.nodes.fallback import deadline_fallback
from graph.nodes.observed import NodeTimedOut
from graph.recorder import CANCELLED, FAILED, RunObserver, TraceRecorder
from graph.report_markdown import with_markdown
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
    forbidden_lines: tuple[str, ...]  # what released text must never echo (the model's instructions)
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


class DiagnosisRunner:
    """Prepares runs of the one compiled graph; every run gets its own context, meter and recorder."""

    def __init__(
        self, graph: DiagnosisGraph, *, recursion_limit: int = 60, max_trace_bytes: int = 65_536
    ) -> None:
        self._graph = graph
        self._recursion_limit = recursion_limit
        self._max_trace_bytes = max_trace_bytes

    def start(self, request: RunRequest, parts: RunParts, observer: RunObserver) -> GraphRun:
        """A run of the graph; nothing runs until its `result()` is awaited."""
        recorder = TraceRecorder(observer, max_trace_bytes=self._max_trace_bytes)
        context = RunContext(
            run_id=request.run_id,
            analyst=parts.analyst,
            rules=parts.rules,
            forbidden_lines=parts.forbidden_lines,
            toolbox=parts.toolbox,
            evidence=parts.evidence,
            digest=parts.digest,
            recorder=recorder,
            budgets=parts.budgets,
            meter=RunMeter(parts.budgets),
            clock=parts.clock,
        )
        return GraphRun(self, request, context)

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
            return _result(deadline_fallback(ctx.items()), ctx, finished=False)
        except GraphRecursionError:
            log.error("run %s: recursion limit reached", request.run_id)
            raise RunFailed("RECURSION_LIMIT") from None
        except NodeTimedOut as timeout:
            log.error("run %s: node %s timed out", request.run_id, timeout.node)
            raise RunFailed("NODE_TIMEOUT") from None
        return _result(final, ctx, finished=True)


class GraphRun:
    """One run of the graph, a plain awaited call in the caller's task: cancelling that task cancels
    the run and its in-flight tool and model calls. Its partial trace stays readable afterwards."""

    def __init__(self, runner: DiagnosisRunner, request: RunRequest, ctx: RunContext) -> None:
        self.run_id = request.run_id
        self._runner = runner
        self._request = request
        self._ctx = ctx
        self._ended: str | None = None  # CANCELLED or FAILED once the run ended without a result

    async def result(self) -> RunResult:
        """The run's result; raises RunFailed with a safe code (CancelledError when cancelled)."""
        try:
            return await self._runner._run(self._request, self._ctx)
        except asyncio.CancelledError:
            self._ended = CANCELLED
            raise
        except RunFailed:
            self._ended = FAILED
            raise
        except Exception:
            # The outer edge of a graph run: log with the run id, report only a stable code.
            log.exception("run %s failed", self.run_id)
            self._ended = FAILED
            raise RunFailed("GRAPH_FAILED") from None

    def partial_trace(self) -> dict[str, Any]:
        """The trace of what happened so far: only transitions that really occurred."""
        return _trace(self._ctx, self._ended or "RUNNING", finished=False)


def _result(final: dict[str, Any], ctx: RunContext, *, finished: bool) -> RunResult:
    outcome: Literal["SUCCESS", "FALLBACK"] = "FALLBACK" if final.get("outcome") == "FALLBACK" else "SUCCESS"
    degradations = ctx.recorder.degradations
    degraded = outcome == "FALLBACK" or bool(degradations)
    route = final.get("route")
    trace = _trace(
        ctx,
        final.get("termination_reason", FAILED),
        finished=finished,
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
        # A diagnosis report also carries its Markdown (`payload.markdown`), written from the masked payload.
        content=with_markdown(redact_data(final["content"])),
        route=route.route if route is not None else None,
        trace=trace,
        self_evaluation=evaluation,
        degraded=degraded,
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
