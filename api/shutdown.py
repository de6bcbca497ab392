"""Server shutdown as something an open stream hears, so that it can say goodbye before it is closed.

On SIGTERM sse-starlette's shutdown watcher calls `set()` on the `shutdown_event` of every open
response (within ~0.5 s), then waits up to `shutdown_grace_period` for the stream to end on its own
before cancelling it. A stream listening here ends with `failure` (SHUTDOWN) and `done` (AIOps: an
`error` frame with code SHUTDOWN, its terminal frame) and cancels its run as SHUTDOWN; the lifespan
then waits for the runs' terminal writes.
"""

from __future__ import annotations

from collections.abc import Callable

SHUTDOWN_CODE = "SHUTDOWN"
SHUTDOWN_MESSAGE = "The server is shutting down; retry shortly."


class StreamShutdown:
    """One per stream; stands in for the `anyio.Event` of sse-starlette's `shutdown_event=`, of which
    the library only calls `set()`. `set()` runs on the event loop (the watcher is a task on it)."""

    def __init__(self) -> None:
        self.requested = False
        self._wake: Callable[[], None] | None = None

    def listen(self, wake: Callable[[], None]) -> None:
        """Call `wake` once when shutdown starts (now, if it has started already); it must not block.
        The stream uses it to wake its own wait for the next run event."""
        self._wake = wake
        if self.requested:
            wake()

    def set(self) -> None:
        if not self.requested:
            self.requested = True
            if self._wake is not None:
                self._wake()

    def is_set(self) -> bool:
        return self.requested
