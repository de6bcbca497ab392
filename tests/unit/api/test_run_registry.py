"""A run's worker slot is freed when its work stops; its terminal write is bounded on its own (a few
at a time, a backlog that turns admission away) and still completes when its caller is cancelled."""

from __future__ import annotations

import asyncio

import pytest

from api.admission import Admission
from api.run_control import RunControl
from api.run_registry import RunRegistry


async def test_a_cancel_frees_the_worker_slot_before_the_run_has_cleaned_up() -> None:
    admission = Admission(capacity=1)
    control = RunControl("run-1", admission.try_acquire())
    cleanup_may_end = asyncio.Event()

    async def run() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await cleanup_may_end.wait()  # the graph unwinding, then the terminal write
            raise

    task = asyncio.create_task(run())
    control.publish(task)
    await asyncio.sleep(0)
    assert admission.try_acquire() is None  # the only slot is the run's while it works
    control.cancel("CLIENT_DISCONNECT")
    assert admission.in_use == 0 and not task.done()
    assert admission.try_acquire() is not None  # the next client gets the slot at once
    cleanup_may_end.set()
    await control.wait(1.0)
    assert admission.in_use == 1  # the late end of the cancelled run gave back nothing twice


async def test_work_stopped_frees_the_slot_once() -> None:
    admission = Admission(capacity=2)
    control = RunControl("run-2", admission.try_acquire())
    admission.try_acquire()
    control.work_stopped()
    control.work_stopped()
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
    registry = RunRegistry(write_timeout_s=5, max_writes=2, max_pending_writes=4)
    gate, running, peak = asyncio.Event(), list[int](), [0]
    writes = [asyncio.create_task(registry.durable(_blocked(gate, running, peak))) for _ in range(3)]
    await asyncio.sleep(0.01)
    assert peak == [2] and registry.pending_writes == 3 and not registry.backlogged
    writes.append(asyncio.create_task(registry.durable(_blocked(gate, running, peak))))
    await asyncio.sleep(0.01)
    assert registry.backlogged
    gate.set()
    assert await asyncio.gather(*writes) == [True] * 4
    assert peak == [2] and registry.pending_writes == 0 and not registry.backlogged


async def test_a_queued_terminal_write_completes_even_when_its_run_is_cancelled() -> None:
    registry = RunRegistry(write_timeout_s=5, max_writes=1)
    gate, running, peak = asyncio.Event(), list[int](), [0]
    first = asyncio.create_task(registry.durable(_blocked(gate, running, peak)))
    stored: list[str] = []

    async def store() -> None:
        stored.append("CANCELLED")

    second = asyncio.create_task(registry.durable(store()))
    await asyncio.sleep(0.01)
    second.cancel()  # e.g. shutdown cancels the run again while its write waits for a slot
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await second
    assert await first and stored == ["CANCELLED"]
