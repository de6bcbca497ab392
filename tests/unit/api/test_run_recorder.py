"""The recorder stores a live run's rows in batches (within `flush_after_s` of each finishing) and the
rest with the run's outcome: no row twice, none lost, in the order the graph reported them."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Sequence
from typing import Any

from sqlalchemy.exc import OperationalError

from api.metrics import ServiceMetrics
from api.run_recorder import RunRecorder
from persistence.trace_rows import StepDraft, ToolDraft
from tools.base import Evidence, EvidenceSource, EvidenceStatus

FLUSH_S = 0.05


class _Store:
    """Records what reached the database: batches while alive, then the terminal write."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.finished: list[str] | None = None
        self.outcome: dict[str, Any] = {}
        self.fail_next = 0
        self.hold: asyncio.Event | None = None
        self.writing = asyncio.Event()

    async def append_trace_rows(
        self, *, run_id: str, steps: Sequence[StepDraft], tools: Sequence[ToolDraft]
    ) -> None:
        self.writing.set()
        if self.hold is not None:
            await self.hold.wait()
        if self.fail_next:
            self.fail_next -= 1
            raise OperationalError("INSERT", {}, Exception("database is down"))
        self.batches.append(_names(steps, tools))

    async def finish_run(
        self, *, run_id: str, steps: Sequence[StepDraft], tools: Sequence[ToolDraft], **outcome: Any
    ) -> bool:
        self.finished = _names(steps, tools)
        self.outcome = outcome
        return True


def _names(steps: Sequence[StepDraft], tools: Sequence[ToolDraft]) -> list[str]:
    return [s.node for s in steps] + [t.tool for t in tools]


def _recorder(store: _Store) -> RunRecorder:
    return RunRecorder(
        run_id="run-1",
        on_status=lambda code: None,
        metrics=ServiceMetrics(),
        runs=store,
        flush_after_s=FLUSH_S,
    )


def _evidence(tool: str) -> Evidence:
    return Evidence(
        id=f"{tool}-1",
        source=EvidenceSource.METRICS,
        tool=tool,
        title=tool,
        summary="",
        data={},
        query={},
        status=EvidenceStatus.OK,
    )


async def _until(predicate: Any) -> None:
    deadline = asyncio.get_running_loop().time() + 5
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached"
        await asyncio.sleep(0.005)


async def test_a_live_runs_rows_are_stored_in_batches_and_the_rest_with_its_outcome() -> None:
    store = _Store()
    recorder = _recorder(store)
    await recorder.on_node("router", "ok", 1.0, "routed")
    await recorder.on_node("planner", "ok", 1.0, "planned")
    await _until(lambda: store.batches)
    assert store.batches == [["router", "planner"]]  # one batch for both, while the run is alive

    await recorder.on_tool(_evidence("query_metrics"), {"q": "up"})
    await _until(lambda: len(store.batches) == 2)
    await recorder.on_node("diagnose", "ok", 1.0, "drafted")
    assert await recorder.finish(status="SUCCESS")
    assert store.batches == [["router", "planner"], ["query_metrics"]]
    assert store.finished == ["diagnose"] and store.outcome == {"status": "SUCCESS"}


async def test_a_run_that_ends_within_the_flush_interval_costs_no_batch() -> None:
    store = _Store()
    recorder = _recorder(store)
    recorder._flush_after_s = 60.0  # a typical run ends long before its first batch is due
    await recorder.on_node("router", "ok", 1.0, "")
    await recorder.on_tool(_evidence("search_runbooks"), {})
    await recorder.finish(status="SUCCESS")
    assert store.batches == [] and store.finished == ["router", "search_runbooks"]


async def test_a_failed_batch_keeps_its_rows_for_the_next_write() -> None:
    store = _Store()
    store.fail_next = 1
    recorder = _recorder(store)
    await recorder.on_node("router", "ok", 1.0, "")
    await _until(lambda: store.writing.is_set())
    await _until(lambda: recorder._flush is not None and not recorder._writing)  # retried later
    await recorder.on_node("planner", "ok", 1.0, "")
    await _until(lambda: store.batches)
    assert store.batches == [["router", "planner"]]
    await recorder.finish(status="CANCELLED")
    assert store.finished == []


async def test_the_outcome_waits_for_a_batch_in_flight_so_rows_keep_their_order() -> None:
    store = _Store()
    store.hold = asyncio.Event()
    recorder = _recorder(store)
    await recorder.on_node("router", "ok", 1.0, "")
    await _until(lambda: store.writing.is_set())
    await recorder.on_node("planner", "ok", 1.0, "")  # arrives while the batch is being written
    finishing = asyncio.create_task(recorder.finish(status="CANCELLED"))
    await asyncio.sleep(0.02)
    assert store.finished is None  # not before the batch in flight is stored
    store.hold.set()
    await finishing
    assert store.batches == [["router"]] and store.finished == ["planner"]


async def test_no_batch_is_written_after_the_run_is_closed() -> None:
    store = _Store()
    recorder = _recorder(store)
    await recorder.on_node("router", "ok", 1.0, "")
    recorder.close()
    await asyncio.sleep(FLUSH_S * 3)
    assert store.batches == [] and not store.writing.is_set()


async def test_a_finished_recorder_is_freed_without_the_cycle_collector() -> None:
    """A flush cancelled by the terminal write must not keep the recorder in a reference cycle (its
    task's context holds the graph's whole run): reference counting frees it, not a later collection."""
    store = _Store()
    recorder = _recorder(store)
    recorder._flush_after_s = 60.0
    await recorder.on_node("router", "ok", 1.0, "")  # schedules a flush, cancelled by finish
    gc.disable()
    try:
        await recorder.finish(status="SUCCESS")
        await asyncio.sleep(0)  # the cancelled flush task runs to its end
        alive = weakref.ref(recorder)
        del recorder
        assert alive() is None
    finally:
        gc.enable()
