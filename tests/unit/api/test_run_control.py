"""The per-run cancel handle and the chat protocol state machine, on plain data."""

from __future__ import annotations

import asyncio
import json

import pytest
from sse_starlette import ServerSentEvent

from api.run_control import RunControl
from api.sse import ChatProtocol, ProtocolViolation


async def test_a_cancel_before_the_run_is_published_is_applied_when_it_is() -> None:
    control = RunControl("run-1")
    control.cancel("CLIENT_DISCONNECT")  # the client left before the run's task existed
    started = asyncio.Event()

    async def run() -> None:
        started.set()
        await asyncio.sleep(10)

    task = asyncio.create_task(run())
    control.publish(task)
    await control.wait(1.0)
    assert task.cancelled() and not started.is_set()
    assert control.cancel_reason == "CLIENT_DISCONNECT"


async def test_the_first_reason_wins_and_a_run_is_cancelled_once() -> None:
    control = RunControl("run-2")
    cleaned = asyncio.Event()

    async def run() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(0.05)  # cleanup a second cancel must not interrupt
            cleaned.set()
            raise

    task = asyncio.create_task(run())
    control.publish(task)
    await asyncio.sleep(0)
    control.cancel("CLIENT_DISCONNECT")
    await asyncio.sleep(0.01)
    control.cancel("SHUTDOWN")
    await control.wait(1.0)
    assert cleaned.is_set() and control.cancel_reason == "CLIENT_DISCONNECT"


async def test_a_finished_run_is_left_as_it_is() -> None:
    control = RunControl("run-3")
    task = asyncio.create_task(asyncio.sleep(0))
    control.publish(task)
    await task
    control.cancel("CLIENT_DISCONNECT")
    assert task.done() and not task.cancelled()


def _events(frames: list[ServerSentEvent]) -> list[tuple[str | None, dict[str, object]]]:
    return [(f.event, json.loads(str(f.data))) for f in frames]


def test_protocol_renders_the_happy_path_in_order() -> None:
    protocol = ChatProtocol()
    frames = [
        protocol.metadata("s-1", "run-1"),
        protocol.status("ROUTING", "Understanding the question"),
        protocol.content("diagnosis_report", {"summary": "ok"}),
        protocol.done("SUCCESS"),
    ]
    assert [name for name, _ in _events(frames)] == ["metadata", "status", "content", "done"]
    assert _events(frames)[0][1] == {"session_id": "s-1", "run_id": "run-1"}
    assert protocol.terminal


@pytest.mark.parametrize(
    "misstep",
    [
        lambda p: p.status("ROUTING", "x"),  # before metadata
        lambda p: (p.metadata("s", "r"), p.metadata("s", "r")),  # duplicate metadata
        lambda p: (p.metadata("s", "r"), p.done("SUCCESS")),  # done before content
        lambda p: (p.metadata("s", "r"), p.content("t", {}), p.failure("C", "m")),  # both
        lambda p: (p.metadata("s", "r"), p.failure("C", "m"), p.done("SUCCESS")),  # wrong outcome
        lambda p: (p.metadata("s", "r"), p.content("t", {}), p.status("ROUTING", "x")),  # late status
    ],
)
def test_protocol_refuses_every_out_of_order_event(misstep: object) -> None:
    with pytest.raises(ProtocolViolation):
        misstep(ChatProtocol())  # type: ignore[operator]


def test_a_violation_inside_the_server_ends_in_failure_and_done_failed() -> None:
    protocol = ChatProtocol()
    protocol.metadata("s", "r")
    frames = _events(protocol.fail_closed())
    assert frames == [
        ("failure", {"code": "PROTOCOL_ERROR", "message": "The response could not be completed."}),
        ("done", {"outcome": "FAILED"}),
    ]
    assert protocol.fail_closed() == []
