"""The run lifecycle on plain data: one task per run and one cancel handle; the worker slot freed when
the work stops; one durable finish per outcome; terminal writes bounded on their own (a few at a time, a
backlog that turns admission away) that still complete when their caller is cancelled; one status cap."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

import pytest

from api.admission import Admission, Permit
from api.metrics import ServiceMetrics
from api.run_lifecycle import Failure, OpenedRun, Run, RunLifecycle, Status
from graph.runner import RunFailed
from persistence.runs import RunStore
from persistence.tables import AgentFlow, RunStatus
from persistence.trace_rows import StepDraft, ToolDraft


class _Store:
    """What reached the database: each terminal write's status and fields."""

    def __init__(self) -> None:
        self.finished: list[dict[str, Any]] = []

    async def append_trace_rows(
        self, *, run_id: str, steps: Sequence[StepDraft], tools: Sequence[ToolDraft]
    ) -> None:
        return None

    async def finish_run(
        self, *, run_id: str, steps: Sequence[StepDraft], tools: Sequence[ToolDraft], **outcome: Any
    ) -> bool:
        self.finished.append(outcome)
        return len(self.finished) == 1  # a second finish finds the run finished already


def _lifecycle(store: _Store | None = None, **bounds: Any) -> RunLifecycle:
    return RunLifecycle(
        store=cast(RunStore, store or _Store()),
        metrics=ServiceMetrics(),
        max_status_events=bounds.pop("max_status_events", 3),
        write_timeout_s=5,
        **bounds,
    )


def _opened(slot: Permit | None = None) -> OpenedRun:
    return OpenedRun("s-1", "run-1", "why?", AgentFlow.CHAT, slot=slot)


async def _drain(run: Run) -> list[Any]:
    events = []
    while not run.channel.events.empty():
        events.append(await run.channel.events.get())
    return events


async def test_a_cancel_frees_the_worker_slot_before_the_run_has_cleaned_up() -> None:
    admission = Admission(capacity=1)
    cleanup_may_end = asyncio.Event()

    async def work(run: Run) -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await cleanup_may_end.wait()  # the graph unwinding
            raise

    run = _lifecycle().start(_opened(admission.try_acquire()), work)
    await asyncio.sleep(0)
    assert admission.try_acquire() is None  # the only slot is the run's while it works
    run.cancel("CLIENT_DISCONNECT")
    assert admission.in_use == 0
    assert admission.try_acquire() is not None  # the next client gets the slot at once
    cleanup_may_end.set()
    await run.wait(1.0)
    assert admission.in_use == 1  # the late end of the cancelled run gave back nothing twice


async def test_the_first_reason_wins_and_a_run_is_cancelled_once_and_stored_cancelled() -> None:
    store, cleaned = _Store(), asyncio.Event()

    async def work(run: Run) -> None:
        run.partial_trace = lambda: {"termination_reason": "CANCELLED"}
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(0.05)  # cleanup a second cancel must not interrupt
            cleaned.set()
            raise

    lifecycle = _lifecycle(store)
    run = lifecycle.start(_opened(), work)
    await asyncio.sleep(0)
    run.cancel("CLIENT_DISCONNECT")
    await asyncio.sleep(0.01)
    run.cancel("SHUTDOWN")
    await run.wait(1.0)
    assert cleaned.is_set() and run.cancel_reason == "CLIENT_DISCONNECT"
    assert store.finished == [
        {
            "status": RunStatus.CANCELLED,
            "cancel_reason": "CLIENT_DISCONNECT",
            "orchestration_trace": {"termination_reason": "CANCELLED"},
        }
    ]
    assert lifecycle.live_run_ids() == [] and await _drain(run) == []  # a cancelled run sends nothing


async def test_a_finished_run_is_left_as_it_is() -> None:
    store = _Store()

    async def work(run: Run) -> None:
        await run.finish(RunStatus.SUCCESS)

    run = _lifecycle(store).start(_opened(), work)
    await run.wait(1.0)
    run.cancel("CLIENT_DISCONNECT")
    await run.wait(1.0)
    assert [outcome["status"] for outcome in store.finished] == [RunStatus.SUCCESS]


@pytest.mark.parametrize(
    ("error", "code"), [(RunFailed("NODE_TIMEOUT"), "NODE_TIMEOUT"), (RuntimeError("x"), "INTERNAL_ERROR")]
)
async def test_a_failed_run_is_stored_failed_and_sends_one_failure(error: Exception, code: str) -> None:
    store, admission = _Store(), Admission(capacity=1)

    async def work(run: Run) -> None:
        raise error

    run = _lifecycle(store).start(_opened(admission.try_acquire()), work)
    await run.wait(1.0)
    assert [(o["status"], o["failure_code"]) for o in store.finished] == [(RunStatus.FAILED, code)]
    assert await _drain(run) == [Failure(code)]
    assert admission.in_use == 0


async def test_statuses_are_capped_once_and_terminal_events_always_fit() -> None:
    async def work(run: Run) -> None:
        for _ in range(100):  # a looping graph
            await run.recorder.on_status("VERIFYING")
        raise RunFailed("RECURSION_LIMIT")

    run = _lifecycle(max_status_events=3).start(_opened(), work)
    await run.wait(1.0)
    assert await _drain(run) == [Status("VERIFYING")] * 3 + [Failure("RECURSION_LIMIT")]


async def test_an_aiops_run_streams_no_statuses() -> None:
    async def work(run: Run) -> None:
        await run.recorder.on_status("ROUTING")

    run = _lifecycle().start(_opened(), work, statuses=False)
    await run.wait(1.0)
    assert await _drain(run) == []


async def test_work_stopped_frees_the_slot_once() -> None:
    admission = Admission(capacity=2)
    gate = asyncio.Event()

    async def work(run: Run) -> None:
        await gate.wait()

    run = _lifecycle().start(_opened(admission.try_acquire()), work)
    admission.try_acquire()
    run.work_stopped()
    run.work_stopped()
    assert admission.in_use == 1
    gate.set()
    await run.wait(1.0)
    assert admission.in_use == 1


async def _blocked(gate: asyncio.Event, running: list[int], peak: list[int]) -> bool:
    running.append(1)
    peak[0] = max(peak[0], len(running))
    try:
        await gate.wait()
        return True
    finally:
        running.pop()


async def test_terminal_writes_run_a_few_at_a_time_and_a_backlog_turns_admission_away() -> None:
    lifecycle = _lifecycle(max_writes=2, max_pending_writes=4)
    gate, running, peak = asyncio.Event(), list[int](), [0]
    writes = [asyncio.create_task(lifecycle.durable(_blocked(gate, running, peak))) for _ in range(3)]
    await asyncio.sleep(0.01)
    assert peak == [2] and lifecycle.pending_writes == 3 and not lifecycle.backlogged
    writes.append(asyncio.create_task(lifecycle.durable(_blocked(gate, running, peak))))
    await asyncio.sleep(0.01)
    assert lifecycle.backlogged
    gate.set()
    assert await asyncio.gather(*writes) == [True] * 4
    assert peak == [2] and lifecycle.pending_writes == 0 and not lifecycle.backlogged


async def test_a_queued_terminal_write_completes_even_when_its_run_is_cancelled() -> None:
    lifecycle = _lifecycle(max_writes=1)
    gate, running, peak = asyncio.Event(), list[int](), [0]
    first = asyncio.create_task(lifecycle.durable(_blocked(gate, running, peak)))
    stored: list[str] = []

    async def store() -> None:
        stored.append("CANCELLED")

    second = asyncio.create_task(lifecycle.durable(store()))
    await asyncio.sleep(0.01)
    second.cancel()  # e.g. shutdown cancels the run again while its write waits for a slot
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await second
    assert await first and stored == ["CANCELLED"]
