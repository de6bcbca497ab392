"""Server shutdown as something an open stream hears, so that it can say goodbye before it is closed.

On SIGTERM the process's `OpenStreams` watch sees the server stopping (within ~0.5 s) and calls
`set()` on the `StreamShutdown` of every open stream, then waits up to the shutdown grace for each
stream to end on its own before cancelling it. A stream listening here ends with `failure` (SHUTDOWN)
and `done` (AIOps: an `error` frame with code SHUTDOWN, its terminal frame) and cancels its run as
SHUTDOWN; the lifespan then waits for the runs' terminal writes.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from sse_starlette.sse import AppStatus

SHUTDOWN_CODE = "SHUTDOWN"
SHUTDOWN_MESSAGE = "The server is shutting down; retry shortly."


class StreamShutdown:
    """One per stream: whether the server is stopping, and whom to wake when it starts to.
    `set()` runs on the event loop (`OpenStreams`' watch is a task on it)."""

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


POLL_S = 0.5


def server_stopping() -> bool:
    """Whether the server is shutting down: sse-starlette's flag (set by its hook on uvicorn's signal
    handler), or the uvicorn server that owns SIGTERM saying so itself (a server stopped by setting
    `should_exit`, as tests and embedding code do)."""
    if AppStatus.should_exit:
        return True
    server = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
    return bool(getattr(server, "should_exit", False))


class OpenStreams:
    """Every open stream of the process with the task that sends it; one watch task (while any is
    open) tells them all when the server stops, and cancels those still open after `grace_s`."""

    def __init__(self, *, grace_s: float) -> None:
        self.grace_s = grace_s
        self._open: dict[StreamShutdown, asyncio.Task[None]] = {}
        self._watch: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._open)

    def add(self, shutdown: StreamShutdown, stream: asyncio.Task[None]) -> None:
        self._open[shutdown] = stream
        if server_stopping():
            shutdown.set()
        if self._watch is None or self._watch.done():
            self._watch = asyncio.get_running_loop().create_task(self._watch_server())

    def discard(self, shutdown: StreamShutdown) -> None:
        self._open.pop(shutdown, None)

    async def _watch_server(self) -> None:
        # Polled: the server's flag is a plain attribute set from its signal handler, not an event.
        while self._open and not server_stopping():  # noqa: ASYNC110
            await asyncio.sleep(POLL_S)
        if not self._open:
            return
        told = list(self._open.items())
        for shutdown, _ in told:
            shutdown.set()
        await asyncio.wait([stream for _, stream in told], timeout=self.grace_s)
        for _, stream in told:
            if not stream.done():
                stream.cancel()
