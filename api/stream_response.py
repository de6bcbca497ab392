"""The SSE response of an admitted run, streamed from the request's own task.

sse-starlette's `EventSourceResponse` runs every response as a task group of three tasks (stream,
disconnect listener, shutdown listener) with their cancel scopes and events: about 20 KB per open
stream, a ninth of what a held stream costs. Here the frames are sent from the request's task; one
small task waits for the client's disconnect and cancels it, and server shutdown is heard once per
process (`api.shutdown.OpenStreams`) instead of once per stream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable, Mapping

import anyio
from sse_starlette import ServerSentEvent
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from api.shutdown import OpenStreams, StreamShutdown

log = logging.getLogger("superbiz.sse")

# Bound on a frame generator's cleanup after a failed send (its run's cancel and terminal write
# are bounded by their own grace inside it).
CLEANUP_TIMEOUT_S = 30.0


class RunStreamResponse(Response):
    """Sends `frames` as `text/event-stream`; `on_close` runs once when the response ends, even if
    no frame was sent. The stream ends quietly when the client leaves, when a send takes longer than
    `send_timeout_s` (a reader that stopped reading), or when the server's shutdown grace is over."""

    media_type = "text/event-stream"

    def __init__(
        self,
        frames: AsyncGenerator[ServerSentEvent, None],
        *,
        on_close: Callable[[], None],
        send_timeout_s: float,
        shutdown: StreamShutdown,
        streams: OpenStreams,
        headers: Mapping[str, str] | None = None,
        status_code: int = 200,  # read by FastAPI's OpenAPI generator as the route's status
    ) -> None:
        self.status_code = status_code
        self.background = None
        self._frames = frames
        self._on_close = on_close
        self._send_timeout_s = send_timeout_s
        self._shutdown = shutdown
        self._streams = streams
        # The headers sse-starlette sets: no caching, no proxy buffering, a connection kept open.
        self.init_headers({**(headers or {}), "Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.headers["Connection"] = "keep-alive"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        task = asyncio.current_task()
        assert task is not None
        client = _Client()
        listener = asyncio.create_task(client.cancel_on_disconnect(receive, task))
        self._streams.add(self._shutdown, task)
        try:
            await self._stream(send)
        except asyncio.CancelledError:
            # Our own cancels (the client left, the shutdown grace ran out) end the stream quietly;
            # any other (the server cancelling the request) goes on.
            if not (client.left or self._shutdown.requested) or task.uncancel() > 0:
                raise
        except _SendTimeout:
            # A reader that stopped reading: its run is cancelled (the frames' finally), which is
            # not a server error to log with a traceback or answer with a 500.
            log.warning("SSE send timed out after %ss: stream closed", self._send_timeout_s)
        finally:
            listener.cancel()
            self._streams.discard(self._shutdown)
            self._on_close()

    async def _stream(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        async for frame in self._frames:
            try:
                await self._send_body(send, frame.encode(), more=True)
            except BaseException:
                await self._close_frames()
                raise
        await self._send_body(send, b"", more=False)

    async def _send_body(self, send: Send, body: bytes, *, more: bool) -> None:
        with anyio.move_on_after(self._send_timeout_s) as scope:
            await send({"type": "http.response.body", "body": body, "more_body": more})
        if scope.cancelled_caught:
            raise _SendTimeout

    async def _close_frames(self) -> None:
        """Close the generator suspended at its `yield`, so its run is cancelled before we go on."""
        with anyio.move_on_after(CLEANUP_TIMEOUT_S, shield=True):
            try:
                await self._frames.aclose()
            except Exception:
                log.exception("could not close a stream's frames after a failed send")


class _SendTimeout(Exception):
    pass


class _Client:
    """Whether the client left (a flag, not an event: nothing waits on it)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = False

    async def cancel_on_disconnect(self, receive: Receive, stream: asyncio.Task[None]) -> None:
        """Wait for the client's disconnect (the request body is read already) and cancel the stream."""
        while (await receive())["type"] != "http.disconnect":
            pass
        self.left = True
        stream.cancel()
