"""Request and response bodies at the HTTP edge (camelCase, with the legacy spellings accepted)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from api.errors import INVALID_CHARACTERS_ERROR

SESSION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
MAX_QUERY_CHARS = 16_000  # hard ceiling; the configured limit (chat.max_query_chars) is checked too


# C0 controls except tab, newline and carriage return; DEL; C1 controls; lone surrogates.
# NUL cannot be stored in PostgreSQL text at all. C1 is refused too although every database stores it:
# no question or comment needs it, and U+009B (CSI) is an escape sequence for terminals that read
# stored text back (the CLI, a log viewer). Lone surrogates (json.loads accepts "\ud800") cannot be
# encoded as UTF-8, so no store could write them either.
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def forbidden_character(text: str) -> bool:
    """Whether `text` holds a character no field of this API accepts."""
    return _FORBIDDEN.search(text) is not None


def _reject_forbidden(value: Any) -> Any:
    texts = value if isinstance(value, list) else [value]
    if any(isinstance(text, str) and forbidden_character(text) for text in texts):
        raise PydanticCustomError(INVALID_CHARACTERS_ERROR, "control characters are not allowed")
    return value


# For path and query parameters; request bodies check every field through `_TextBody`.
NoControlCharacters = BeforeValidator(_reject_forbidden)


class _TextBody(BaseModel):
    """A request body whose every text field (strings and lists of strings) is free of control characters."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_control_characters(cls, value: Any) -> Any:
        return _reject_forbidden(value)


def _first(data: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in data and data[name] is not None:
            return data[name]
    return None


class ChatRequest(_TextBody):
    """`{"sessionId"?, "query"}`; also `Id`/`id` and `Question`/`question`."""

    model_config = ConfigDict(extra="ignore")

    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)

    @model_validator(mode="before")
    @classmethod
    def _legacy_spellings(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        return {
            "session_id": _first(data, "sessionId", "Id", "id", "session_id"),
            "query": _first(data, "query", "Question", "question"),
        }

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        stripped = value.strip()
        if not stripped:
            raise ValueError("query must not be blank")
        return stripped


class AiOpsRequest(_TextBody):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    session_id: str | None = Field(default=None, alias="sessionId", pattern=SESSION_ID_PATTERN)
    services: list[str] = Field(default_factory=list, max_length=20)
    instruction: str | None = Field(default=None, max_length=2_000)

    @field_validator("services")
    @classmethod
    def _bounded_names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not 0 < len(name) <= 128:
                raise ValueError("service names are 1..128 characters")
        return value


class FeedbackRequest(_TextBody):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    session_id: str = Field(alias="sessionId", pattern=SESSION_ID_PATTERN)
    run_id: str = Field(alias="runId", pattern=RUN_ID_PATTERN)
    useful: bool
    comment: str | None = Field(default=None, max_length=2_000)


# Success bodies: the routes return these models, so the OpenAPI document describes every JSON body.
# Fields are snake_case, sent camelCase. Unknown keys are refused (additionalProperties: false in the
# document), so a field the schemathesis suite sees without its schema fails there.
IsoTime = Annotated[datetime, PlainSerializer(lambda value: value.isoformat(), return_type=str)]


class _Body(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        from_attributes=True,
        json_schema_serialization_defaults_required=True,  # the envelope's code and message are always sent
    )


class RunSummaryBody(_Body):
    run_id: str
    session_id: str
    query: str
    status: str
    outcome: str | None
    agent_flow: str
    route: str | None
    answer_preview: str | None
    step_count: int
    tool_call_count: int
    failure_code: str | None
    cancel_reason: str | None
    created_at: IsoTime
    updated_at: IsoTime
    finished_at: IsoTime | None


class TraceRunBody(RunSummaryBody):
    orchestration_trace: dict[str, Any] | None


class SessionBody(_Body):
    session_id: str
    status: str
    message_pair_count: int
    created_at: IsoTime
    last_active_at: IsoTime
    expires_at: IsoTime | None


class StepBody(_Body):
    seq: int
    node: str
    status: str
    started_at: IsoTime
    duration_ms: float
    summary: str


class ToolInvocationBody(_Body):
    seq: int
    tool: str
    evidence_id: str | None
    status: str
    args_summary: str
    result_summary: str
    bytes: int
    duration_ms: float
    created_at: IsoTime


class TraceBody(_Body):
    session: SessionBody
    run: TraceRunBody
    steps: list[StepBody]
    tool_invocations: list[ToolInvocationBody]
    self_evaluation: dict[str, Any] | None
    answer: Any
    feedback: dict[str, Any] | None


class FeedbackBody(_Body):
    run_id: str
    session_id: str
    feedback: dict[str, Any]
    case_id: str | None


class HealthBody(_Body):
    status: str


class ReadinessBody(_Body):
    ready: bool
    checks: dict[str, Any]  # per dependency: {status, detail[, backend]}; sql_datasources: per name


class _Envelope(_Body):
    code: str = "OK"
    message: str = "ok"


class RunsEnvelope(_Envelope):
    data: list[RunSummaryBody]


class TraceEnvelope(_Envelope):
    data: TraceBody


class FeedbackEnvelope(_Envelope):
    data: FeedbackBody


class HealthEnvelope(_Envelope):
    data: HealthBody


class ReadinessEnvelope(_Envelope):
    data: ReadinessBody
