"""A stream hears the server shut down: it wakes from its wait, sends what the run had already queued,
then failure SHUTDOWN + done (AIOps: its error frame), and cancels its run as SHUTDOWN."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from api.run_lifecycle import Answer, OpenedRun, Run, RunLifecycle, Work
from api.run_stream import StreamProtocol, run_frames
from api.shutdown import SHUTDOWN_MESSAGE, StreamShutdown
from api.sse import AiOpsProtocol, ChatProtocol
from persistence.tables import AgentFlow
from tests.unit.api.test_run_lifecycle import _lifecycle

OPENED = OpenedRun("s-1", "run-1", "why?", AgentFlow.CHAT)


class _Runs:
    """Starts the run the test plays, on a real lifecycle, and keeps it for assertions."""

    def __init__(self, work: Work) -> None:
        self.lifecycle: RunLifecycle = _lifecycle()
        self.work = work
        self.run: Run | None = None

    def start(self, opened: OpenedRun) -> Run:
        self.run = self.lifecycle.start(opened, self.work)
        return self.run


async def _silent(run: Run) -> None:
    await asyncio.sleep(60)


def _frames(runs: _Runs, protocol: StreamProtocol, shutdown: StreamShutdown) -> AsyncIterator[Any]:
    return run_frames(OPENED, runs.start, protocol, cancel_grace_s=1.0, ping_s=60, shutdown=shutdown)


def _named(frame: Any) -> tuple[str, Any]:
    return frame.event, json.loads(frame.data)


async def test_chat_stream_waiting_on_its_run_ends_with_shutdown_frames() -> None:
    runs, shutdown = _Runs(_silent), StreamShutdown()
    frames = _frames(runs, ChatProtocol(), shutdown)
    assert _named(await anext(frames))[0] == "metadata"
    waiting = asyncio.ensure_future(anext(frames))  # the run is silent: the stream waits
    await asyncio.sleep(0.01)
    assert not waiting.done()
    shutdown.set()
    rest = [_named(await waiting)] + [_named(frame) async for frame in frames]
    assert rest == [
        ("failure", {"code": "SHUTDOWN", "message": SHUTDOWN_MESSAGE}),
        ("done", {"outcome": "FAILED"}),
    ]
    assert runs.run is not None and runs.run.cancel_reason == "SHUTDOWN"


async def test_what_the_run_queued_goes_out_before_the_shutdown_frames() -> None:
    answered = asyncio.Event()

    async def answers(run: Run) -> None:
        run.channel.status("DIAGNOSING")
        await run.channel.publish(Answer("answer", {"text": "done already"}, "SUCCESS"))
        answered.set()

    runs, shutdown = _Runs(answers), StreamShutdown()
    frames = _frames(runs, ChatProtocol(), shutdown)
    await anext(frames)
    await answered.wait()
    shutdown.set()
    names = [_named(frame)[0] async for frame in frames]
    assert names == ["status", "content", "done"]  # finished before shutdown: delivered as it was
    assert runs.run is not None and runs.run.cancel_reason is None


async def test_aiops_stream_ends_with_its_shutdown_error_frame() -> None:
    runs, shutdown = _Runs(_silent), StreamShutdown()
    shutdown.set()  # already shutting down when the stream starts listening
    messages = [_named(frame)[1] async for frame in _frames(runs, AiOpsProtocol(), shutdown)]
    assert [m["type"] for m in messages] == ["metadata", "error"]
    assert messages[-1] == {"type": "error", "code": "SHUTDOWN", "data": SHUTDOWN_MESSAGE}
    assert runs.run is not None and runs.run.cancel_reason == "SHUTDOWN"
