"""The runs this process owns: their tasks (by run id), and the terminal writes that must outlive a cancel.

One registry per process, shared by chat and AIOps. It knows which runs are live, so the heartbeat
and the orphan sweep can tell a live run from one whose task is gone. A run's worker slot is freed
when its work stops, so terminal writes are bounded here instead: a few at a time, each with a
timeout, and admission refuses new runs while too many wait (a slow database cannot pile them up).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

from api.run_control import RunControl

log = logging.getLogger("superbiz.runs")
T = TypeVar("T")


class RunRegistry:
    """Starts run tasks, finishes their stored state durably, and cancels what is left at shutdown."""

    def __init__(self, *, write_timeout_s: float, max_writes: int = 4, max_pending_writes: int = 64) -> None:
        self._write_timeout_s = write_timeout_s
        self._write_slots = asyncio.Semaphore(max_writes)
        self._max_pending_writes = max_pending_writes
        self._runs: dict[str, asyncio.Task[None]] = {}
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
        return list(self._runs.values())

    def live_run_ids(self) -> list[str]:
        return list(self._runs)

    def start(self, run_id: str, work: Coroutine[Any, Any, None], control: RunControl) -> RunControl:
        """Run `work` in its own task (named after the run) and publish it on `control`."""
        task = asyncio.create_task(work, name=run_id)
        self._runs[run_id] = task
        task.add_done_callback(lambda _: self._runs.pop(run_id, None))
        control.publish(task)
        return control

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
        for task in self._runs.values():
            if task.cancelling() == 0:
                task.cancel()
        pending = [*self._runs.values(), *self._writes]
        if pending:
            await asyncio.wait(pending, timeout=grace_s * 2 + self._write_timeout_s)
