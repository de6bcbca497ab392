"""The one owner of every run: it opens the run row, runs the flow's work in the run's one task,
publishes the run's events to one bounded channel (the one status cap), and finishes the run durably.

Chat and AIOps are flows over it (`api.chat_flow`, `api.aiops_flow`); the stream reads the channel
(`api.run_stream`) and frames it (`api.sse`). A run is cancelled by cancelling its task (`Run.cancel`):
the graph is a plain awaited call inside it. The run's worker slot is freed when its work stops;
terminal writes are bounded here instead: a few at a time, each with a timeout, and admission refuses
new runs while too many wait (a slow database cannot pile them up).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from sse_starlette.sse import AppStatus

from api.admission import Permit
from api.errors import NotFound
from api.logs import current_run, current_session
from api.metrics import ServiceMetrics
from api.run_channel import Channel
from api.run_recorder import RunRecorder
from graph.runner import RunFailed
from persistence.records import SessionNotFound
from persistence.runs import RunStore
from persistence.tables import AgentFlow, RunOutcome, RunStatus
from tools.redaction import redact

log = logging.getLogger("superbiz.runs")
T = TypeVar("T")

CLIENT_DISCONNECT = "CLIENT_DISCONNECT"
SHUTDOWN = "SHUTDOWN"


def end_reason() -> str:
    """Why a stream ended before its run did: the server shutting down, or the client leaving."""
    return SHUTDOWN if AppStatus.should_exit else CLIENT_DISCONNECT


# The events a run publishes; `api.sse` frames them for each protocol.
@dataclass(frozen=True, slots=True)
class Status:
    code: str  # worded for clients by `api.sse`


@dataclass(frozen=True, slots=True)
class Part:
    payload: dict[str, Any]  # one piece of a multi-part answer (an AIOps group report, its summary)


@dataclass(frozen=True, slots=True)
class Answer:
    content_type: str
    payload: dict[str, Any]
    outcome: str  # terminal: the released answer


@dataclass(frozen=True, slots=True)
class Done:
    """Terminal: every part is stored and sent."""


@dataclass(frozen=True, slots=True)
class Failure:
    code: str  # terminal; the stored code (`api.sse` maps it to a public one)


RunEvent = Status | Part | Answer | Done | Failure
WAKE = Done()  # never published: wakes the stream's wait (shutdown); compared by identity


class RunChannel:
    """The bounded channel from a run to its stream. Statuses beyond `max_statuses` are dropped (a
    looping graph cannot flood the stream); room for every other event is reserved, so none is lost."""

    __slots__ = ("_statuses_left", "events")

    def __init__(self, *, max_statuses: int, max_events: int) -> None:
        self._statuses_left = max_statuses
        self.events: Channel[RunEvent] = Channel(max_statuses + max_events + 1)

    def status(self, code: str) -> None:
        if self._statuses_left > 0:
            self._statuses_left -= 1
            self.events.put_nowait(Status(code))

    async def publish(self, event: RunEvent) -> None:
        await self.events.put(event)

    def wake(self) -> None:
        """Wake the stream's wait for the next event (shutdown); a full channel wakes it anyway."""
        self.events.put_nowait(WAKE)


@dataclass(frozen=True, slots=True)
class OpenedRun:
    session_id: str
    run_id: str
    query: str
    flow: AgentFlow
    services: list[str] = field(default_factory=list)
    # The worker slot admission gave this run; freed when the run's work stops.
    slot: Permit | None = field(default=None, compare=False, repr=False)
    principal: str | None = None  # the session's owner: the run reads only its past cases


class Run:
    """One run in flight: its one task (the one cancel handle), its channel, recorder and finish."""

    def __init__(self, lifecycle: RunLifecycle, opened: OpenedRun, channel: RunChannel) -> None:
        self.opened = opened
        self.run_id = opened.run_id
        self.channel = channel
        self.recorder = RunRecorder(
            run_id=opened.run_id,
            on_status=channel.status,
            metrics=lifecycle.metrics,
            runs=lifecycle.store,
            flow=opened.flow.value,
        )
        self.cancel_reason: str | None = None
        # What the run has done so far, stored when it ends without an answer (set by the flow).
        self.partial_trace: Callable[[], dict[str, Any] | None] = lambda: None
        self.finished = False  # a terminal write was made: a later cancel writes nothing
        self._lifecycle = lifecycle
        self._task: asyncio.Task[None] | None = None

    def cancel(self, reason: str) -> None:
        """Request cancellation; the first reason wins and a finished run is left as it is."""
        if self.cancel_reason is None:
            self.cancel_reason = reason
        # One cancel per run: a second one would interrupt the run's own cleanup.
        if self._task is not None and not self._task.done() and self._task.cancelling() == 0:
            self._task.cancel()
        # The run starts no new work from here: its graph unwinds and its terminal write waits for
        # a write slot of its own, so the worker slot goes to the next client now.
        self.work_stopped()

    def work_stopped(self) -> None:
        """The run's graph is done or cancelled: free its worker slot (idempotent)."""
        if self.opened.slot is not None:
            self.opened.slot.release()

    async def wait(self, grace_s: float) -> None:
        """Wait (shielded, bounded) for the run's task: its graph unwinding, then its terminal write."""
        if self._task is None:
            return
        with anyio.CancelScope(shield=True), anyio.move_on_after(grace_s):
            await asyncio.wait({self._task})

    async def finish(self, status: RunStatus, **outcome: Any) -> bool:
        """The one durable finish: outcome and unstored trace rows in one transaction (False when the
        run was finished elsewhere meanwhile, e.g. swept); counted and timed once."""
        self.finished = True
        stored = await self._lifecycle.durable(self.recorder.finish(status=status, **outcome))
        self.recorder.mark_finished()
        result: RunOutcome | None = outcome.get("outcome")
        if stored or status is not RunStatus.SUCCESS:
            flow = self.opened.flow.value
            self._lifecycle.metrics.runs.labels(flow, status.value, result.value if result else "NONE").inc()
        return stored


Work = Callable[[Run], Awaitable[None]]


class RunLifecycle:
    """One per process, shared by chat and AIOps: opens runs, owns their tasks (by run id, so the
    heartbeat and the orphan sweep can tell a live run from one whose task is gone), finishes them."""

    def __init__(
        self,
        *,
        store: RunStore,
        metrics: ServiceMetrics,
        max_status_events: int,
        write_timeout_s: float,
        max_writes: int = 4,
        max_pending_writes: int = 64,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self._max_status_events = max_status_events
        self._write_timeout_s = write_timeout_s
        self._write_slots = asyncio.Semaphore(max_writes)
        self._max_pending_writes = max_pending_writes
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._writes: set[asyncio.Task[Any]] = set()

    @property
    def backlogged(self) -> bool:
        """Too many terminal writes wait or run: admission answers 503 until they drain."""
        return len(self._writes) >= self._max_pending_writes

    @property
    def pending_writes(self) -> int:
        return len(self._writes)

    @property
    def active(self) -> list[asyncio.Task[None]]:
        return list(self._tasks.values())

    def live_run_ids(self) -> list[str]:
        return list(self._tasks)

    async def open(
        self,
        *,
        session_id: str | None,
        query: str,
        principal: str | None,
        flow: AgentFlow,
        services: list[str] | None = None,
    ) -> OpenedRun:
        """Ensure the session row and create the RUNNING run; nothing runs yet."""
        effective = session_id or f"s-{uuid.uuid4().hex}"
        # A secret pasted into a question is masked before it is stored, so the run row, the
        # session's history, a case grown from the run and the trace never hold it.
        query = redact(query)
        try:
            run = await self.store.open_run(
                session_id=effective, query=query, principal=principal, agent_flow=flow
            )
        except SessionNotFound:
            # Another principal's session is answered exactly like a missing one.
            raise NotFound("Session not found.") from None
        return OpenedRun(effective, run.run_id, query, flow, list(services or []), principal=principal)

    def start(self, opened: OpenedRun, work: Work, *, statuses: bool = True, max_events: int = 2) -> Run:
        """Run `work` in the run's one task (named after the run); `max_events` bounds what it
        publishes besides statuses (which only chat streams)."""
        channel = RunChannel(max_statuses=self._max_status_events if statuses else 0, max_events=max_events)
        run = Run(self, opened, channel)
        task = asyncio.create_task(self._own(run, work), name=opened.run_id)
        run._task = task
        self._tasks[opened.run_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(opened.run_id, None))
        return run

    async def _own(self, run: Run, work: Work) -> None:
        """Whatever happens inside a run (failure, cancel, a database error), it ends with a stored
        terminal state and, unless the client left, exactly one terminal event."""
        current_session.set(run.opened.session_id)  # this task's own context: logs carry the ids
        current_run.set(run.run_id)
        try:
            await work(run)
        except asyncio.CancelledError:
            run.work_stopped()  # before the terminal write: the next client need not wait for it
            if not run.finished:  # stored (and sent) already: nothing left to cancel
                await self._finish_quietly(
                    run,
                    RunStatus.CANCELLED,
                    cancel_reason=run.cancel_reason or "CANCELLED",
                    orchestration_trace=run.partial_trace(),
                )
            raise
        except RunFailed as failure:
            await self._fail(run, failure.code)
        except Exception:
            log.exception("run %s failed unexpectedly", run.run_id)
            await self._fail(run, "INTERNAL_ERROR")
        finally:
            run.work_stopped()
            run.recorder.close()
            run.recorder.mark_finished()

    async def _fail(self, run: Run, code: str) -> None:
        run.work_stopped()
        try:
            await self._finish_quietly(
                run,
                RunStatus.FAILED,
                outcome=RunOutcome.FAILED,
                failure_code=code,
                orchestration_trace=run.partial_trace(),
            )
        finally:
            await run.channel.publish(Failure(code))

    async def _finish_quietly(self, run: Run, status: RunStatus, **outcome: Any) -> None:
        try:
            await run.finish(status, **outcome)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("run %s: could not store its %s outcome", run.run_id, status.value)

    async def durable(self, write: Coroutine[Any, Any, T]) -> T:
        """Complete a terminal write even if the caller is cancelled (again) meanwhile.

        The write runs in a task of its own, queued for one of a few write slots (fewer than the
        database pool, so a queued write never fails on a pool timeout) and then bounded by a timeout;
        a cancel of the caller is held back until the write is done and then re-raised, so the run's
        final state is never lost.
        """
        task = asyncio.ensure_future(self._bounded(write))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)
        cancelled = False
        while not task.done():
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                cancelled = True
            except Exception:
                break
        if cancelled:
            if not task.cancelled() and task.exception() is not None:
                log.error("a terminal run write failed", exc_info=task.exception())
            raise asyncio.CancelledError
        return task.result()

    async def _bounded(self, write: Coroutine[Any, Any, T]) -> T:
        try:
            await self._write_slots.acquire()
        except BaseException:
            write.close()  # cancelled (shutdown) while queued: the write never started
            raise
        try:
            return await asyncio.wait_for(write, self._write_timeout_s)
        finally:
            self._write_slots.release()

    async def shutdown(self, grace_s: float) -> None:
        """Cancel every live run once, then wait (bounded) for runs and their terminal writes."""
        for task in self._tasks.values():
            if task.cancelling() == 0:
                task.cancel()
        pending = [*self._tasks.values(), *self._writes]
        if pending:
            await asyncio.wait(pending, timeout=grace_s + self._write_timeout_s)
