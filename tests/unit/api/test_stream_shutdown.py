"""A stream hears the server shut down: it wakes from its wait, sends what the run had already queued,
then failure SHUTDOWN + done (AIOps: its error frame), and cancels its run as SHUTDOWN."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

from api.aiops_use_case import AiOpsUseCase, aiops_frames
from api.chat_stream import StreamEvents, chat_frames
from api.chat_use_case import ChatUseCase, OpenedRun
from api.run_control import RunControl
from api.shutdown import SHUTDOWN_MESSAGE, StreamShutdown
from persistence.tables import AgentFlow

OPENED = OpenedRun("s-1", "run-1", "why?", AgentFlow.CHAT)


class _Run:
    """Stands in for a use case: keeps the stream's queue so the test can play the run."""

    def __init__(self) -> None:
        self.control = RunControl(OPENED.run_id)
        self.sink: Any = None

    def start(self, opened: OpenedRun, sink: Any) -> RunControl:
        self.sink = sink
        return self.control


def _named(frame: Any) -> tuple[str, Any]:
    return frame.event, json.loads(frame.data)


def _chat(run: _Run, shutdown: StreamShutdown) -> Any:
    use_case = cast(ChatUseCase, run)
    return chat_frames(OPENED, use_case, queue_size=8, cancel_grace_s=0.1, ping_s=60, shutdown=shutdown)


async def test_chat_stream_waiting_on_its_run_ends_with_shutdown_frames() -> None:
    run, shutdown = _Run(), StreamShutdown()
    frames = _chat(run, shutdown)
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
    assert run.control.cancel_reason == "SHUTDOWN"


async def test_what_the_run_queued_goes_out_before_the_shutdown_frames() -> None:
    run, shutdown = _Run(), StreamShutdown()
    frames = _chat(run, shutdown)
    await anext(frames)
    events = cast(StreamEvents, run.sink)
    await events.on_status("DIAGNOSING", "Diagnosing")
    await events.on_content("answer", {"text": "done already"}, "SUCCESS")
    shutdown.set()
    names = [_named(frame)[0] async for frame in frames]
    assert names == ["status", "content", "done"]  # finished before shutdown: delivered as it was
    assert run.control.cancel_reason is None


async def test_aiops_stream_ends_with_its_shutdown_error_frame() -> None:
    run, shutdown = _Run(), StreamShutdown()
    shutdown.set()  # already shutting down when the stream starts listening
    use_case = cast(AiOpsUseCase, run)
    frames = aiops_frames(OPENED, use_case, cancel_grace_s=0.1, queue_size=4, ping_s=60, shutdown=shutdown)
    messages = [message async for message in frames]
    assert [m["type"] for m in messages if m] == ["metadata", "error"]
    assert messages[-1] == {"type": "error", "code": "SHUTDOWN", "data": SHUTDOWN_MESSAGE}
    assert run.control.cancel_reason == "SHUTDOWN"
