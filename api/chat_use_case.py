"""The chat use case: session and run rows, multi-turn context, one graph run, its persisted outcome.

The controller only validates, admits and maps these callbacks onto SSE; everything a run does, and
the rule that content is released only after SemanticGuard, lives here. Whatever happens inside a
run (failure, cancel, a database error), it ends with a stored terminal state and, unless the client
left, exactly one content or failure event.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

from api.admission import Permit
from api.engine import DiagnosisEngine
from api.errors import NotFound
from api.logs import current_run, current_session
from api.metrics import ServiceMetrics
from api.run_control import RunControl
from api.run_recorder import RunRecorder
from api.run_registry import RunRegistry
from graph.runner import RunFailed, RunHandle, RunRequest, RunResult
from persistence.records import SessionNotFound
from persistence.runs import RunStore
from persistence.sessions import SessionContextStore
from persistence.tables import AgentFlow, RunOutcome, RunStatus
from tools.redaction import redact

log = logging.getLogger("superbiz.chat")

FAILURE_MESSAGES = {
    "RUN_TIMEOUT": "The diagnosis took too long and was stopped.",
    "INTERNAL_ERROR": "The diagnosis could not be completed.",
}
# Stored failure codes (internal) → the public code a client sees.
PUBLIC_FAILURE = {"NODE_TIMEOUT": "RUN_TIMEOUT"}


class ChatEvents(Protocol):
    """What a run reports to whoever streams it."""

    async def on_status(self, code: str, message: str) -> None: ...
    async def on_content(self, content_type: str, payload: dict[str, Any], outcome: str) -> None: ...
    async def on_failure(self, code: str, message: str) -> None: ...


@dataclass(frozen=True, slots=True)
class OpenedRun:
    session_id: str
    run_id: str
    query: str
    flow: AgentFlow
    services: list[str] = field(default_factory=list)
    # The worker slot admission gave this run; freed when the run's work stops (`RunControl`).
    slot: Permit | None = field(default=None, compare=False, repr=False)
    principal: str | None = None  # the session's owner: the run reads only its past cases


@dataclass(frozen=True, slots=True)
class RunTimings:
    max_status_events: int
    max_answer_bytes: int


class ChatUseCase:
    """Built once in the composition root and shared by every chat run."""

    def __init__(
        self,
        *,
        runs: RunStore,
        contexts: SessionContextStore,
        engine: DiagnosisEngine,
        registry: RunRegistry,
        timings: RunTimings,
        metrics: ServiceMetrics,
    ) -> None:
        self.metrics = metrics
        self.registry = registry
        self._runs = runs
        self._contexts = contexts
        self._engine = engine
        self._timings = timings

    async def open(
        self,
        *,
        session_id: str | None,
        query: str,
        principal: str | None = None,
        flow: AgentFlow = AgentFlow.CHAT,
        services: list[str] | None = None,
    ) -> OpenedRun:
        """Ensure the session row and create the RUNNING run; nothing runs yet."""
        effective = session_id or f"s-{uuid.uuid4().hex}"
        # A secret pasted into a question is masked before it is stored, so the run row, the
        # session's history, a case grown from the run and the trace never hold it.
        query = redact(query)
        try:
            run = await self._runs.open_run(
                session_id=effective, query=query, principal=principal, agent_flow=flow
            )
        except SessionNotFound:
            # Another principal's session is answered exactly like a missing one.
            raise NotFound("Session not found.") from None
        return OpenedRun(effective, run.run_id, query, flow, list(services or []), principal=principal)

    def start(self, opened: OpenedRun, events: ChatEvents) -> RunControl:
        """Run the graph in its own task; the returned control cancels exactly this run."""
        control = RunControl(opened.run_id, opened.slot)
        return self.registry.start(opened.run_id, self._execute(opened, events, control), control)

    async def _execute(self, opened: OpenedRun, events: ChatEvents, control: RunControl) -> None:
        current_session.set(opened.session_id)  # this task's own context: logs carry the ids
        current_run.set(opened.run_id)
        recorder = RunRecorder(
            run_id=opened.run_id,
            status_sink=events.on_status,
            max_status_events=self._timings.max_status_events,
            metrics=self.metrics,
            runs=self._runs,
            flow=opened.flow.value,
        )
        handle: RunHandle | None = None
        released = False
        try:
            history = await self._contexts.history(session_id=opened.session_id)
            request = RunRequest(
                run_id=opened.run_id,
                session_id=opened.session_id,
                query=opened.query,
                history=list(history.turns),
                flow=opened.flow.value,
                services=opened.services,
                principal=opened.principal,
            )
            handle = self._engine.start(request, observer=recorder)
            result = await handle.result()
            control.work_stopped()
            await self._release(opened, result, history.degraded, events, recorder)
            released = True
            await self._remember(opened, result)
        except asyncio.CancelledError:
            if released:  # stored and sent already: nothing left to cancel
                raise
            # Cancel the graph first, so the partial trace says CANCELLED and holds only what ran.
            if handle is not None:
                await handle.cancel(control.cancel_reason or "CANCELLED")
            control.work_stopped()  # before the terminal write: the next client need not wait for it
            await self._finish_cancelled(opened, control, handle, recorder)
            raise
        except RunFailed as failure:
            control.work_stopped()
            await self._finish_failed(opened, failure.code, handle, events, recorder)
        except Exception:
            log.exception("run %s failed unexpectedly", opened.run_id)
            control.work_stopped()
            await self._finish_failed(opened, "INTERNAL_ERROR", handle, events, recorder)
        finally:
            control.work_stopped()
            recorder.close()
            recorder.mark_finished()

    async def _release(
        self,
        opened: OpenedRun,
        result: RunResult,
        history_degraded: bool,
        events: ChatEvents,
        recorder: RunRecorder,
    ) -> None:
        if len(json.dumps(result.content, default=str)) > self._timings.max_answer_bytes:
            raise RunFailed("ANSWER_TOO_LARGE")
        payload = result.content.get("payload", {})
        evaluation = dict(result.self_evaluation)
        evaluation["history_degraded"] = history_degraded
        changed = await self.registry.durable(
            recorder.finish(
                status=RunStatus.SUCCESS,
                outcome=RunOutcome(result.outcome),
                answer=result.content,
                answer_preview=_preview(payload),
                content_type=str(result.content.get("content_type", "")),
                route=result.route,
                self_evaluation=evaluation,
                orchestration_trace=result.trace,
                message_pair=True,
            )
        )
        if not changed:  # finished elsewhere meanwhile (swept): nothing is released
            raise RunFailed("RUN_NOT_RUNNING")
        recorder.mark_finished()
        self.metrics.runs.labels(opened.flow.value, "SUCCESS", result.outcome).inc()
        self.metrics.model_calls.inc(result.model_calls)
        self.metrics.model_tokens.inc(result.tokens)
        await events.on_content(str(result.content.get("content_type", "")), dict(payload), result.outcome)

    async def _remember(self, opened: OpenedRun, result: RunResult) -> None:
        """Best effort: the answer is stored and released already when the history is written."""
        try:
            await self._contexts.append_turn(
                session_id=opened.session_id, turn=history_turn(opened.query, result)
            )
        except Exception:
            log.warning(
                "run %s: could not record the turn in the session history", opened.run_id, exc_info=True
            )

    async def _finish_failed(
        self,
        opened: OpenedRun,
        code: str,
        handle: RunHandle | None,
        events: ChatEvents,
        recorder: RunRecorder,
    ) -> None:
        public_code = PUBLIC_FAILURE.get(code, code if code in FAILURE_MESSAGES else "INTERNAL_ERROR")
        try:
            await self.registry.durable(
                recorder.finish(
                    status=RunStatus.FAILED,
                    outcome=RunOutcome.FAILED,
                    failure_code=code,
                    orchestration_trace=None if handle is None else handle.partial_trace(),
                )
            )
        except Exception:
            log.exception("run %s: could not store its failure", opened.run_id)
        finally:
            recorder.mark_finished()
            self.metrics.runs.labels(opened.flow.value, "FAILED", "FAILED").inc()
            await events.on_failure(public_code, FAILURE_MESSAGES[public_code])

    async def _finish_cancelled(
        self, opened: OpenedRun, control: RunControl, handle: RunHandle | None, recorder: RunRecorder
    ) -> None:
        try:
            await self.registry.durable(
                recorder.finish(
                    status=RunStatus.CANCELLED,
                    cancel_reason=control.cancel_reason or "CANCELLED",
                    orchestration_trace=None if handle is None else handle.partial_trace(),
                )
            )
        except Exception:
            log.exception("run %s: could not store its cancellation", opened.run_id)
        self.metrics.runs.labels(opened.flow.value, "CANCELLED", "NONE").inc()


def _preview(payload: Any) -> str:
    if isinstance(payload, dict):
        for key in ("summary", "text", "message"):
            value = payload.get(key)
            if isinstance(value, str) and value:
                return value[:300]
    return ""


def history_turn(query: str, result: RunResult) -> dict[str, Any]:
    """What the next turn of the conversation remembers of this one (shared with the evaluation)."""
    payload = result.content.get("payload", {})
    root = payload.get("root_cause") if isinstance(payload, dict) else None
    return {
        "query": query[:500],
        "summary": _preview(payload),
        "root_cause_service": root.get("service") if isinstance(root, dict) else None,
    }
