"""Request and response bodies at the HTTP edge (camelCase, with the legacy spellings accepted)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SESSION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
MAX_QUERY_CHARS = 16_000  # hard ceiling; the configured limit (chat.max_query_chars) is checked too


def _first(data: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in data and data[name] is not None:
            return data[name]
    return None


class ChatRequest(BaseModel):
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


class AiOpsRequest(BaseModel):
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


class FeedbackRequest(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    session_id: str = Field(alias="sessionId", pattern=SESSION_ID_PATTERN)
    run_id: str = Field(alias="runId", pattern=RUN_ID_PATTERN)
    useful: bool
    comment: str | None = Field(default=None, max_length=2_000)
