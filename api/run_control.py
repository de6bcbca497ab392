"""The per-run cancel handle shared by the SSE layer and the use case.

A cancel requested before the run's task is published is remembered and applied the moment it is
(a client may disconnect before the run has really started).
"""

from __future__ import annotations

import asyncio

import anyio
from sse_starlette.sse import AppStatus

CLIENT_DISCONNECT = "CLIENT_DISCONNECT"
SHUTDOWN = "SHUTDOWN"


def end_reason() -> str:
    """Why a stream ended before its run did: the server shutting down, or the client leaving."""
    return SHUTDOWN if AppStatus.should_exit else CLIENT_DISCONNECT


class RunControl:
    """Cancels exactly one run, idempotently, whenever the request arrives."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.cancel_reason: str | None = None
        self._task: asyncio.Task[None] | None = None

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

    async def wait(self, grace_s: float) -> None:
        """Wait (shielded, bounded) for the run's task to finish its cleanup."""
        if self._task is None:
            return
        with anyio.CancelScope(shield=True), anyio.move_on_after(grace_s):
            await asyncio.wait({self._task})
