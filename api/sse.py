"""The chat SSE protocol: one state machine and pure functions from run events to frames.

Order: metadata → status* → (content | failure) → done. Anything else produced inside the server is
turned into failure + done(FAILED) by `ChatProtocol`, never sent as a malformed stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sse_starlette import ServerSentEvent

OUTCOMES = frozenset({"SUCCESS", "FALLBACK", "FAILED"})
PROTOCOL_VIOLATION = {"code": "PROTOCOL_ERROR", "message": "The response could not be completed."}


class Phase(StrEnum):
    START = "start"
    OPEN = "open"  # metadata sent; statuses may follow
    RELEASED = "released"  # content or failure sent; only done may follow
    DONE = "done"


class ProtocolViolation(Exception):
    """An event the protocol does not allow at this point."""


def _frame(event: str, data: dict[str, Any]) -> ServerSentEvent:
    # sse-starlette sends a dict as its Python repr: always serialise JSON ourselves.
    return ServerSentEvent(event=event, data=json.dumps(data, separators=(",", ":")))


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
