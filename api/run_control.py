"""The per-run cancel handle shared by the SSE layer and the use case, and the run's worker slot.

A cancel requested before the run's task is published is remembered and applied the moment it is
(a client may disconnect before the run has really started). The worker slot is given back when the
run's work stops, not when its terminal row is written: a dropped run costs the next client nothing.
"""

from __future__ import annotations

import asyncio

import anyio
from sse_starlette.sse import AppStatus

from api.admission import Permit

CLIENT_DISCONNECT = "CLIENT_DISCONNECT"
SHUTDOWN = "SHUTDOWN"


def end_reason() -> str:
    """Why a stream ended before its run did: the server shutting down, or the client leaving."""
    return SHUTDOWN if AppStatus.should_exit else CLIENT_DISCONNECT


class RunControl:
    """Cancels exactly one run, idempotently, whenever the request arrives."""

    def __init__(self, run_id: str, slot: Permit | None = None) -> None:
        self.run_id = run_id
        self.cancel_reason: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._slot = slot

    @property
    def cancel_requested(self) -> bool:
        return self.cancel_reason is not None

    def publish(self, task: asyncio.Task[None]) -> None:
        """Attach the run's task; a cancel that arrived earlier takes effect now."""
        self._task = task
        if self.cancel_reason is not None:
            task.cancel()

    def cancel(self, reason: str) -> None:
        """Request cancellation; the first reason wins and a finished run is left as it is."""
        if self.cancel_reason is None:
            self.cancel_reason = reason
        # One cancel per run: a second one would interrupt the run's own cleanup.
        if self._task is not None and not self._task.done() and self._task.cancelling() == 0:
            self._task.cancel()
        # The run starts no new work from here: its graph unwinds within the cancel grace (on
        # PostgreSQL a cancelled query takes ~0.1 s to cancel server-side) and its terminal write
        # waits for a write slot of its own, so the worker slot goes to the next client now.
        self.work_stopped()

    def work_stopped(self) -> None:
        """The run's graph is done or cancelled: free its worker slot (idempotent). What is left,
        the terminal write, is bounded by the registry's own write queue."""
        if self._slot is not None:
            self._slot.release()

    async def wait(self, grace_s: float) -> None:
        """Wait (shielded, bounded) for the run's task to finish its cleanup."""
        if self._task is None:
            return
        with anyio.CancelScope(shield=True), anyio.move_on_after(grace_s):
            await asyncio.wait({self._task})
