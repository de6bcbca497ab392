"""The admitted run's SSE response, driven as ASGI: it ends quietly when the client leaves, when a
send stalls, and when the server's shutdown grace is over; its frames' cleanup runs and `on_close`
runs once in every case. `OpenStreams` tells every open stream once the server stops."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from sse_starlette import ServerSentEvent
from starlette.types import Message

from api import shutdown as shutdown_module
from api.shutdown import OpenStreams, StreamShutdown
from api.stream_response import RunStreamResponse

SCOPE = {"type": "http", "method": "POST", "path": "/api/chat", "headers": []}


class _Frames:
    """A frame generator that sends one frame, then waits for `more` (or ends when shutdown is set)."""

    def __init__(self, shutdown: StreamShutdown | None = None) -> None:
        self.cleaned = 0
        self.more = asyncio.Event()
        self.shutdown = shutdown

    async def __call__(self) -> AsyncGenerator[ServerSentEvent, None]:
        try:
            yield ServerSentEvent(event="metadata", data="{}")
            while not self.more.is_set():
                if self.shutdown is not None and self.shutdown.requested:
                    yield ServerSentEvent(event="failure", data='{"code":"SHUTDOWN"}')
                    return
                await asyncio.sleep(0.01)
            yield ServerSentEvent(event="done", data="{}")
        finally:
            self.cleaned += 1


def _response(frames: _Frames, closed: list[int], streams: OpenStreams, **kwargs: Any) -> RunStreamResponse:
    return RunStreamResponse(
        frames(),
        on_close=lambda: closed.append(1),
        send_timeout_s=kwargs.pop("send_timeout_s", 5.0),
        shutdown=kwargs.pop("shutdown", StreamShutdown()),
        streams=streams,
        headers={"X-Run-Id": "run-1"},
    )


async def _never_disconnects() -> Message:
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


async def test_a_finished_stream_sends_its_frames_and_closes_once() -> None:
    frames, closed, sent = _Frames(), list[int](), list[Message]()
    frames.more.set()

    async def send(message: Message) -> None:
        sent.append(message)

    await _response(frames, closed, OpenStreams(grace_s=1))(SCOPE, _never_disconnects, send)
    start, *bodies = sent
    headers = dict(start["headers"])
    assert headers[b"content-type"].startswith(b"text/event-stream")
    assert headers[b"cache-control"] == b"no-store" and headers[b"x-run-id"] == b"run-1"
    assert (
        b"".join(b["body"] for b in bodies)
        == b"event: metadata\r\ndata: {}\r\n\r\nevent: done\r\ndata: {}\r\n\r\n"
    )
    assert bodies[-1]["more_body"] is False
    assert frames.cleaned == 1 and closed == [1]


async def test_a_client_that_leaves_ends_the_stream_quietly_and_runs_its_cleanup() -> None:
    frames, closed = _Frames(), list[int]()
    left = asyncio.Event()

    async def receive() -> Message:
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message.get("body"):
            left.set()  # the client leaves after the first frame

    streams = OpenStreams(grace_s=1)
    await asyncio.wait_for(_response(frames, closed, streams)(SCOPE, receive, send), 2)
    assert frames.cleaned == 1 and closed == [1] and len(streams) == 0


async def test_a_stalled_send_times_out_without_an_error_and_closes_the_frames() -> None:
    frames, closed = _Frames(), list[int]()

    async def send(message: Message) -> None:
        if message["type"] == "http.response.body":
            await asyncio.sleep(3600)  # a reader that stopped reading

    response = _response(frames, closed, OpenStreams(grace_s=1), send_timeout_s=0.05)
    await asyncio.wait_for(response(SCOPE, _never_disconnects, send), 2)
    assert frames.cleaned == 1 and closed == [1]


async def test_a_cancel_from_outside_is_not_swallowed() -> None:
    frames, closed = _Frames(), list[int]()

    async def send(message: Message) -> None:
        pass

    task = asyncio.create_task(
        _response(frames, closed, OpenStreams(grace_s=1))(SCOPE, _never_disconnects, send)
    )
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert frames.cleaned == 1 and closed == [1]


async def test_shutdown_tells_every_stream_and_cancels_those_still_open_after_the_grace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stopping = False
    monkeypatch.setattr(shutdown_module, "server_stopping", lambda: stopping)
    monkeypatch.setattr(shutdown_module, "POLL_S", 0.01)
    streams = OpenStreams(grace_s=0.2)
    polite, stubborn = StreamShutdown(), StreamShutdown()
    polite_frames, stubborn_frames = _Frames(polite), _Frames()  # the stubborn one ignores shutdown
    closed: list[int] = []
    sent: list[bytes] = []

    async def send(message: Message) -> None:
        sent.append(message.get("body", b""))

    tasks = [
        asyncio.create_task(_response(f, closed, streams, shutdown=s)(SCOPE, _never_disconnects, send))
        for f, s in ((polite_frames, polite), (stubborn_frames, stubborn))
    ]
    await asyncio.sleep(0.05)
    assert len(streams) == 2 and not polite.requested
    stopping = True
    await asyncio.wait_for(asyncio.gather(*tasks), 2)  # neither raises: the grace's cancel is ours
    assert polite.requested and stubborn.requested
    assert any(b"SHUTDOWN" in body for body in sent)
    assert polite_frames.cleaned == stubborn_frames.cleaned == 1 and closed == [1, 1]
    assert len(streams) == 0


async def test_a_stream_opened_after_shutdown_began_is_told_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutdown_module, "server_stopping", lambda: True)
    streams, shutdown = OpenStreams(grace_s=1), StreamShutdown()
    frames, closed = _Frames(shutdown), list[int]()

    async def send(message: Message) -> None:
        pass

    await asyncio.wait_for(
        _response(frames, closed, streams, shutdown=shutdown)(SCOPE, _never_disconnects, send), 2
    )
    assert shutdown.requested and frames.cleaned == 1 and closed == [1]
