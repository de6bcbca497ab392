"""The HTTP end of a run: admission, the one frame loop both protocols share, and the SSE response.

The run belongs to a task of its own (`api.run_lifecycle`); the stream only reads the run's channel.
If the stream ends before the protocol's last frame (disconnect, send timeout, send failure) it
cancels exactly that run, shielded and bounded.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from sse_starlette import ServerSentEvent

from api.admission import Admission, Permit
from api.errors import ApiError, DatabaseUnavailable, Unavailable, database_outage
from api.keep_alive import keep_alive
from api.metrics import ServiceMetrics
from api.run_lifecycle import SHUTDOWN, WAKE, Failure, OpenedRun, Run, RunEvent, RunLifecycle, end_reason
from api.shutdown import OpenStreams, StreamShutdown
from api.stream_response import RunStreamResponse

log = logging.getLogger("superbiz.sse")


class StreamProtocol(Protocol):
    """What `api.sse` offers per protocol: the opening frame, and the frames of each run event."""

    @property
    def terminal(self) -> bool: ...
    def opening(self, session_id: str, run_id: str) -> ServerSentEvent: ...
    def render(self, event: RunEvent) -> list[ServerSentEvent]: ...


async def run_frames(
    opened: OpenedRun,
    start: Callable[[OpenedRun], Run],
    protocol: StreamProtocol,
    *,
    cancel_grace_s: float,
    ping_s: float,
    shutdown: StreamShutdown,
) -> AsyncGenerator[ServerSentEvent, None]:
    """The opening frame, then the run's events as the protocol frames them until its last one, a
    keep-alive comment after every `ping_s` of silence; the run is cancelled when the client leaves;
    the protocol's SHUTDOWN failure ends the stream when the server stops."""
    run = start(opened)
    shutdown.listen(run.channel.wake)
    try:
        yield protocol.opening(opened.session_id, opened.run_id)
        while not protocol.terminal:
            if shutdown.requested and run.channel.events.empty():  # what the run sent already goes first
                run.cancel(SHUTDOWN)
                for frame in protocol.render(Failure(SHUTDOWN)):
                    yield frame
                break
            event = await run.channel.events.get(ping_s)
            if event is None:
                yield keep_alive()
                continue
            if event is WAKE:
                continue
            for frame in protocol.render(event):
                yield frame
    finally:
        if not protocol.terminal:
            run.cancel(end_reason())
            await run.wait(cancel_grace_s)  # the graph unwinding, then the run's terminal write


@dataclass(frozen=True, slots=True)
class StreamGate:
    """What a streaming route needs besides its flow: admission, the terminal-write backlog, the
    stream metrics and the send bounds (`deps.StreamGateDep` hands it out)."""

    admission: Admission
    lifecycle: RunLifecycle
    metrics: ServiceMetrics
    send_timeout_s: float
    streams: OpenStreams


async def admit_and_open(
    gate: StreamGate, open_run: Callable[[], Awaitable[OpenedRun]]
) -> tuple[OpenedRun, Permit]:
    """Take a worker slot (503 when none is free, or when terminal writes are backlogged: a slow
    database), then open the run; nothing is left held on failure. The run frees the slot when its
    work stops; the response frees it at the latest when it ends (`RunStreamResponse`)."""
    permit = None if gate.lifecycle.backlogged else gate.admission.try_acquire()
    if permit is None:
        gate.metrics.admission_rejections.inc()
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


def run_headers(opened: OpenedRun) -> dict[str, str]:
    """The run's ids before its first frame: a client (and the OpenAPI links) can follow up on the
    run's trace without parsing the stream."""
    return {"X-Session-Id": opened.session_id, "X-Run-Id": opened.run_id}


def streaming_response(
    gate: StreamGate,
    permit: Permit,
    opened: OpenedRun,
    frames: AsyncGenerator[ServerSentEvent, None],
    shutdown: StreamShutdown,
) -> RunStreamResponse:
    """The SSE response of an admitted run: counted as an open stream, its permit released at the end."""
    gate.metrics.active_streams.inc()

    def close() -> None:
        gate.metrics.active_streams.dec()
        permit.release()

    # The frames send their own keep-alives when idle (`Channel.get`). On server shutdown they say
    # goodbye within the grace period before the stream is cancelled (`OpenStreams`).
    return RunStreamResponse(
        frames,
        on_close=close,
        send_timeout_s=gate.send_timeout_s,
        shutdown=shutdown,
        streams=gate.streams,
        headers=run_headers(opened),
    )
