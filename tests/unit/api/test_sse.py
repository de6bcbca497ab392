"""The two SSE protocols as pure functions from run events to frames, without a server."""

from __future__ import annotations

import json

import pytest
from sse_starlette import ServerSentEvent

from api.run_lifecycle import Answer, Done, Failure, Part, Status
from api.shutdown import SHUTDOWN_MESSAGE
from api.sse import STATUS_MESSAGES, AiOpsProtocol, ChatProtocol, ProtocolViolation
from graph.recorder import NODE_STATUS


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


def test_chat_renders_run_events_with_the_public_wording() -> None:
    protocol = ChatProtocol()
    frames = [protocol.opening("s-1", "run-1")]
    frames += protocol.render(Status("DIAGNOSING"))
    frames += protocol.render(Answer("diagnosis_report", {"summary": "ok"}, "FALLBACK"))
    assert _events(frames)[1:] == [
        ("status", {"code": "DIAGNOSING", "message": "Drafting a diagnosis"}),
        ("content", {"content_type": "diagnosis_report", "payload": {"summary": "ok"}}),
        ("done", {"outcome": "FALLBACK"}),
    ]


@pytest.mark.parametrize(
    ("code", "public"),
    [
        ("NODE_TIMEOUT", ("RUN_TIMEOUT", "The diagnosis took too long and was stopped.")),
        ("RECURSION_LIMIT", ("INTERNAL_ERROR", "The diagnosis could not be completed.")),
        ("SHUTDOWN", ("SHUTDOWN", SHUTDOWN_MESSAGE)),
    ],
)
def test_a_stored_failure_code_is_sent_as_its_public_code(code: str, public: tuple[str, str]) -> None:
    protocol = ChatProtocol()
    protocol.opening("s", "r")
    assert _events(protocol.render(Failure(code))) == [
        ("failure", {"code": public[0], "message": public[1]}),
        ("done", {"outcome": "FAILED"}),
    ]


def test_every_status_code_the_graph_reports_has_public_wording() -> None:
    assert set(NODE_STATUS.values()) == set(STATUS_MESSAGES)


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


def test_an_event_chat_does_not_stream_ends_the_stream_safely() -> None:
    protocol = ChatProtocol()
    protocol.opening("s", "r")
    assert [name for name, _ in _events(protocol.render(Part({"x": 1})))] == ["failure", "done"]
    assert protocol.terminal


def _messages(frames: list[ServerSentEvent]) -> list[dict[str, object]]:
    assert all(frame.event == "message" for frame in frames)
    return [json.loads(str(frame.data)) for frame in frames]


def test_aiops_renders_legacy_message_frames() -> None:
    protocol = AiOpsProtocol()
    frames = [protocol.opening("s-1", "run-1")]
    for event in (Status("ROUTING"), Part({"group": 1}), Part({"summary": "ok"}), Done()):
        frames += protocol.render(event)
    assert _messages(frames) == [
        {"type": "metadata", "data": {"sessionId": "s-1", "runId": "run-1"}},
        {"type": "content", "data": {"group": 1}},
        {"type": "content", "data": {"summary": "ok"}},
        {"type": "done"},
    ]
    assert protocol.terminal


@pytest.mark.parametrize(
    ("code", "frame"),
    [
        ("INTERNAL_ERROR", {"type": "error", "data": "The alert scan could not be completed."}),
        ("SHUTDOWN", {"type": "error", "code": "SHUTDOWN", "data": SHUTDOWN_MESSAGE}),
    ],
)
def test_aiops_ends_a_failed_scan_with_one_error_frame(code: str, frame: dict[str, object]) -> None:
    protocol = AiOpsProtocol()
    assert _messages(protocol.render(Failure(code))) == [frame]
    assert protocol.terminal
