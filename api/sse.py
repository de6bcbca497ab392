"""The two SSE protocols, as pure functions from run events (`api.run_lifecycle`) to frames, and the
only public wording of statuses and failures.

Chat: metadata → status* → (content | failure) → done. Anything else produced inside the server is
turned into failure + done(FAILED) by `ChatProtocol`, never sent as a malformed stream.
AIOps (legacy `message` frames): metadata → content* → done | error.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import orjson
from sse_starlette import ServerSentEvent

from api.run_lifecycle import Answer, Done, Failure, Part, RunEvent, Status
from api.shutdown import SHUTDOWN_CODE, SHUTDOWN_MESSAGE

OUTCOMES = frozenset({"SUCCESS", "FALLBACK", "FAILED"})
log = logging.getLogger("superbiz.sse")
PROTOCOL_VIOLATION = {"code": "PROTOCOL_ERROR", "message": "The response could not be completed."}

# Fixed safe messages: the only status text a client ever sees (the graph reports codes).
STATUS_MESSAGES: dict[str, str] = {
    "ROUTING": "Understanding the question",
    "PLANNING": "Planning which evidence to gather",
    "COLLECTING_EVIDENCE": "Collecting evidence",
    "DIAGNOSING": "Drafting a diagnosis",
    "VERIFYING": "Checking the draft against the evidence",
    "REPAIRING": "Correcting the draft",
    "COMPOSING": "Preparing the answer",
}
FAILURE_MESSAGES = {
    "RUN_TIMEOUT": "The diagnosis took too long and was stopped.",
    "INTERNAL_ERROR": "The diagnosis could not be completed.",
    SHUTDOWN_CODE: SHUTDOWN_MESSAGE,
}
# Stored failure codes (internal) → the public code a client sees; any other is INTERNAL_ERROR.
PUBLIC_FAILURE = {"NODE_TIMEOUT": "RUN_TIMEOUT"}
AIOPS_FAILED = "The alert scan could not be completed."


def public_failure(code: str) -> tuple[str, str]:
    """The public code and message of a stored failure code."""
    public = PUBLIC_FAILURE.get(code, code if code in FAILURE_MESSAGES else "INTERNAL_ERROR")
    return public, FAILURE_MESSAGES[public]


class Phase(StrEnum):
    START = "start"
    OPEN = "open"  # metadata sent; statuses may follow
    RELEASED = "released"  # content or failure sent; only done may follow
    DONE = "done"


class ProtocolViolation(Exception):
    """An event the protocol does not allow at this point."""


def compact_json(data: Any) -> str:
    """`data` as compact JSON text. orjson first: an answer with its chart points was serialised
    about 5x slower by the standard library, three times per run (size check, frame, store)."""
    try:
        return orjson.dumps(data).decode()
    except TypeError:  # beyond orjson (integers over 64 bits, non-string keys)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _frame(event: str, data: dict[str, Any]) -> ServerSentEvent:
    # sse-starlette sends a dict as its Python repr: always serialise JSON ourselves.
    return ServerSentEvent(event=event, data=compact_json(data))


@dataclass(slots=True)
class ChatProtocol:
    """Validates each outgoing event against the protocol and renders it as a frame."""

    phase: Phase = Phase.START
    outcome: str | None = None
    sent: list[str] = field(default_factory=list)

    @property
    def terminal(self) -> bool:
        return self.phase is Phase.DONE

    def metadata(self, session_id: str, run_id: str) -> ServerSentEvent:
        self._expect(Phase.START, "metadata")
        self.phase = Phase.OPEN
        return self._emit("metadata", {"session_id": session_id, "run_id": run_id})

    def status(self, code: str, message: str) -> ServerSentEvent:
        self._expect(Phase.OPEN, "status")
        return self._emit("status", {"code": code, "message": message})

    def content(self, content_type: str, payload: dict[str, Any]) -> ServerSentEvent:
        self._expect(Phase.OPEN, "content")
        if not content_type or not isinstance(payload, dict):
            raise ProtocolViolation("content needs a content_type and an object payload")
        self.phase = Phase.RELEASED
        return self._emit("content", {"content_type": content_type, "payload": payload})

    def failure(self, code: str, message: str) -> ServerSentEvent:
        self._expect(Phase.OPEN, "failure")
        self.phase = Phase.RELEASED
        self.outcome = "FAILED"
        return self._emit("failure", {"code": code, "message": message})

    def done(self, outcome: str) -> ServerSentEvent:
        self._expect(Phase.RELEASED, "done")
        if outcome not in OUTCOMES or (self.outcome == "FAILED" and outcome != "FAILED"):
            raise ProtocolViolation(f"done outcome {outcome!r} does not fit the released event")
        self.phase = Phase.DONE
        return self._emit("done", {"outcome": outcome})

    def opening(self, session_id: str, run_id: str) -> ServerSentEvent:
        return self.metadata(session_id, run_id)

    def render(self, event: RunEvent) -> list[ServerSentEvent]:
        """The frames of one run event; an event out of protocol ends the stream safely."""
        try:
            return self._render(event)
        except ProtocolViolation:
            log.exception("a run produced an out-of-protocol event")
            return self.fail_closed()

    def _render(self, event: RunEvent) -> list[ServerSentEvent]:
        match event:
            case Status(code):
                return [self.status(code, STATUS_MESSAGES[code])]
            case Answer(content_type, payload, outcome):
                return [self.content(content_type, payload), self.done(outcome)]
            case Failure(code):
                return [self.failure(*public_failure(code)), self.done("FAILED")]
        raise ProtocolViolation(f"chat streams no {type(event).__name__} event")

    def fail_closed(self) -> list[ServerSentEvent]:
        """The frames that end the stream safely after an internal violation."""
        frames: list[ServerSentEvent] = []
        if self.phase is Phase.DONE:
            return frames
        if self.phase is Phase.START:
            raise ProtocolViolation("cannot fail a stream before its metadata")
        if self.phase is Phase.OPEN:
            frames.append(self.failure(PROTOCOL_VIOLATION["code"], PROTOCOL_VIOLATION["message"]))
        self.outcome = "FAILED"
        self.phase = Phase.RELEASED
        frames.append(self.done("FAILED"))
        return frames

    def _expect(self, phase: Phase, event: str) -> None:
        if self.phase is not phase:
            raise ProtocolViolation(f"{event} is not allowed in phase {self.phase}")

    def _emit(self, event: str, data: dict[str, Any]) -> ServerSentEvent:
        self.sent.append(event)
        return _frame(event, data)


@dataclass(slots=True)
class AiOpsProtocol:
    """The legacy AIOps frames: every event is a `message` frame carrying `{type, data}`."""

    terminal: bool = False

    def opening(self, session_id: str, run_id: str) -> ServerSentEvent:
        return _frame("message", {"type": "metadata", "data": {"sessionId": session_id, "runId": run_id}})

    def render(self, event: RunEvent) -> list[ServerSentEvent]:
        match event:
            case Part(payload):
                return [_frame("message", {"type": "content", "data": payload})]
            case Done():
                self.terminal = True
                return [_frame("message", {"type": "done"})]
            case Failure(code) if code == SHUTDOWN_CODE:
                self.terminal = True
                return [_frame("message", {"type": "error", "code": SHUTDOWN_CODE, "data": SHUTDOWN_MESSAGE})]
            case Failure():
                self.terminal = True
                return [_frame("message", {"type": "error", "data": AIOPS_FAILED})]
        return []  # statuses and answers are chat's
