"""Maps one run's callbacks onto chat SSE frames and owns the connection's end of the run.

The run belongs to a task of its own; this generator only reads a bounded queue. If the stream ends
before `done` (disconnect, send timeout, send failure) it cancels exactly that run, shielded and bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.sse import SendTimeoutError
from starlette.types import Receive, Scope, Send

from api.admission import Permit
from api.chat_use_case import ChatUseCase, OpenedRun
from api.errors import ApiError, DatabaseUnavailable, Unavailable, database_outage
from api.keep_alive import keep_alive, next_or_idle
from api.run_control import SHUTDOWN, end_reason
from api.shutdown import SHUTDOWN_CODE, SHUTDOWN_MESSAGE, StreamShutdown
from api.sse import ChatProtocol, ProtocolViolation

if TYPE_CHECKING:  # composition imports the use cases this module maps: no import cycle at run time
    from api.composition import Services

log = logging.getLogger("superbiz.sse")


class StreamEvents:
    """`ChatEvents` backed by a bounded queue; statuses are bounded upstream, so it cannot overflow."""

    def __init__(self, size: int) -> None:
        self.queue: asyncio.Queue[tuple[str, tuple[Any, ...]]] = asyncio.Queue(maxsize=size)

    def _put(self, kind: str, *data: Any) -> None:
        try:
            self.queue.put_nowait((kind, data))
        except asyncio.QueueFull:  # only statuses can be dropped: terminal events have reserved room
            log.warning("status event dropped: stream queue full")

    async def on_status(self, code: str, message: str) -> None:
        if self.queue.qsize() < self.queue.maxsize - 2:
            self._put("status", code, message)

    async def on_content(self, content_type: str, payload: dict[str, Any], outcome: str) -> None:
        self._put("content", content_type, payload, outcome)

    async def on_failure(self, code: str, message: str) -> None:
        self._put("failure", code, message)

    def wake(self) -> None:
        """Wake the stream's wait for the next event (shutdown); a full queue wakes it anyway."""
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(("wake", ()))


def _frames(protocol: ChatProtocol, kind: str, data: tuple[Any, ...]) -> list[ServerSentEvent]:
    if kind == "status":
        return [protocol.status(*data)]
    if kind == "content":
        content_type, payload, outcome = data
        return [protocol.content(content_type, payload), protocol.done(outcome)]
    if kind == "failure":
        return [protocol.failure(*data), protocol.done("FAILED")]
    raise ProtocolViolation(f"unknown run event {kind!r}")


async def chat_frames(
    opened: OpenedRun,
    use_case: ChatUseCase,
    *,
    queue_size: int,
    cancel_grace_s: float,
    ping_s: float,
    shutdown: StreamShutdown,
) -> AsyncIterator[ServerSentEvent]:
    """metadata → status* → content|failure → done, a keep-alive comment after every `ping_s` of
    silence; a cancelled run when the client leaves; failure SHUTDOWN + done when the server stops."""
    protocol = ChatProtocol()
    events = StreamEvents(queue_size)
    control = use_case.start(opened, events)
    shutdown.listen(events.wake)
    try:
        yield protocol.metadata(opened.session_id, opened.run_id)
        while not protocol.terminal:
            if shutdown.requested and events.queue.empty():  # what the run sent already goes first
                control.cancel(SHUTDOWN)
                yield protocol.failure(SHUTDOWN_CODE, SHUTDOWN_MESSAGE)
                yield protocol.done("FAILED")
                break
            event = await next_or_idle(events.queue, ping_s)
            if event is None:
                yield keep_alive()
                continue
            kind, data = event
            if kind == "wake":
                continue
            try:
                frames = _frames(protocol, kind, data)
            except ProtocolViolation:
                log.exception("run %s produced an out-of-protocol event", opened.run_id)
                frames = protocol.fail_closed()
            for frame in frames:
                yield frame
    finally:
        if not protocol.terminal:
            control.cancel(end_reason())
            await control.wait(cancel_grace_s * 2)  # the graph's grace, then the run's terminal write


async def admit_and_open(
    services: Services, open_run: Callable[[], Awaitable[OpenedRun]]
) -> tuple[OpenedRun, Permit]:
    """Take a worker slot (503 when none is free, or when terminal writes are backlogged: a slow
    database), then open the run; nothing is left held on failure. The run frees the slot when its
    work stops; the response frees it at the latest when it ends (`AdmittedEventSourceResponse`)."""
    permit = None if services.chat.registry.backlogged else services.admission.try_acquire()
    if permit is None:
        services.metrics.admission_rejections.inc()
        raise Unavailable()
    try:
        opened = await open_run()
        return dataclasses.replace(opened, slot=permit), permit
    except ApiError:
        permit.release()
        raise
    except Exception as error:
        permit.release()
        if database_outage(error):
            log.warning("could not open a run: database unavailable (%s)", type(error).__name__)
            raise DatabaseUnavailable() from None
        log.exception("could not open a run")
        raise Unavailable("The service cannot start a run right now.") from None


def streaming_response(
    services: Services, permit: Permit, frames: AsyncIterator[ServerSentEvent], shutdown: StreamShutdown
) -> AdmittedEventSourceResponse:
    """The SSE response of an admitted run: counted as an open stream, its permit released at the end."""
    services.metrics.active_streams.inc()

    def close() -> None:
        services.metrics.active_streams.dec()
        permit.release()

    # ping=0: the frames send their own keep-alives when idle (`next_or_idle`). On server shutdown
    # the frames say goodbye within the grace period before sse-starlette cancels them.
    return AdmittedEventSourceResponse(
        frames,
        on_close=close,
        ping=0,
        send_timeout=services.settings.chat.sse_send_timeout_s,
        shutdown_event=shutdown,
        shutdown_grace_period=services.settings.chat.shutdown_grace_s,
    )


class AdmittedEventSourceResponse(EventSourceResponse):
    """Releases the admission permit when the response ends, even if the generator never started."""

    def __init__(self, *args: Any, on_close: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except SendTimeoutError:
            # A reader that stopped reading: the stream is over and its run cancelled (chat_frames'
            # finally), which is not a server error to log with a traceback or answer with a 500.
            log.warning("SSE send timed out after %ss: stream closed", self.send_timeout)
        finally:
            self._on_close()
