"""SQLModel tables of the application database: sessions, runs, steps, tool calls, past cases.

Only `persistence.runs.RunStore` reads or writes these rows; everyone else sees plain records.
Constraint and index names are explicit so Alembic diffs stay stable across dialects.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlmodel import Field, SQLModel

# JSON, JSONB on PostgreSQL; `none_as_null` stores Python None as SQL NULL, not JSON 'null'.
JSONType = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
# Stored in UTC; SQLite hands back naive values, which the run store re-attaches to UTC.
UTCDateTime = sa.DateTime(timezone=True)

ID_CHARS = 128  # session ids come from clients; run and case ids are ours
SUMMARY_CHARS = 1_000  # bound of every stored step/tool summary
PREVIEW_CHARS = 500


# The metadata Alembic compares against; every table below registers itself on it.
metadata = SQLModel.metadata


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class SessionStatus(StrEnum):
    ACTIVE = "ACTIVE"  # the only status: sessions are never closed, only aged out of the context store


class AgentFlow(StrEnum):
    CHAT = "CHAT"
    AI_OPS = "AI_OPS"


class RunStatus(StrEnum):
    RUNNING = "RUNNING"
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class RunOutcome(StrEnum):
    SUCCESS = "SUCCESS"
    FALLBACK = "FALLBACK"
    FAILED = "FAILED"


class ChatSession(SQLModel, table=True):
    """Metadata of one chat session; never its history (that is the session-context store)."""

    __tablename__ = "chat_session"
    __table_args__ = (
        sa.UniqueConstraint("session_id", name="uq_chat_session_session_id"),
        sa.Index("ix_chat_session_principal", "principal"),  # the Investigations list (0005)
    )

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(max_length=ID_CHARS)
    principal: str | None = Field(default=None, max_length=ID_CHARS)  # who owns it, once auth exists
    status: str = Field(default=SessionStatus.ACTIVE.value, max_length=16)
    message_pair_count: int = Field(default=0)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    last_active_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class DiagnosisRun(SQLModel, table=True):
    """One chat or AIOps run: its lifecycle, released answer, counts and orchestration trace."""

    __tablename__ = "diagnosis_run"
    __table_args__ = (
        sa.UniqueConstraint("run_id", name="uq_diagnosis_run_run_id"),
        sa.Index("ix_diagnosis_run_session_run", "session_id", "run_id"),
        # the orphan sweep looks for RUNNING rows by heartbeat age
        sa.Index("ix_diagnosis_run_status_heartbeat", "status", "heartbeat_at"),
        sa.Index("ix_diagnosis_run_created_at", "created_at"),  # newest runs first (0005)
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(max_length=64)
    session_id: str = Field(max_length=ID_CHARS, foreign_key="chat_session.session_id", ondelete="CASCADE")
    agent_flow: str = Field(default=AgentFlow.CHAT.value, max_length=16)
    query: str = Field(sa_type=sa.Text)
    status: str = Field(default=RunStatus.RUNNING.value, max_length=16)
    outcome: str | None = Field(default=None, max_length=16)
    route: str | None = Field(default=None, max_length=32)
    answer: str | None = Field(default=None, sa_type=sa.Text)  # JSON text of the released payload
    answer_preview: str | None = Field(default=None, max_length=PREVIEW_CHARS)
    content_type: str | None = Field(default=None, max_length=64)
    step_count: int = Field(default=0)
    tool_call_count: int = Field(default=0)
    self_evaluation: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    feedback: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    failure_code: str | None = Field(default=None, max_length=64)
    cancel_reason: str | None = Field(default=None, max_length=64)
    owner: str | None = Field(default=None, max_length=ID_CHARS)  # worker id, for the orphan sweep
    heartbeat_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    orchestration_trace: dict[str, Any] | None = Field(default=None, sa_type=JSONType)


class AgentStep(SQLModel, table=True):
    """One graph node execution of a run."""

    __tablename__ = "agent_step"
    __table_args__ = (
        # Its index also serves lookups by run_id alone (the leading column).
        sa.UniqueConstraint("run_id", "seq", name="uq_agent_step_run_seq"),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(max_length=64, foreign_key="diagnosis_run.run_id", ondelete="CASCADE")
    session_id: str = Field(max_length=ID_CHARS)
    seq: int
    node: str = Field(max_length=64)
    status: str = Field(max_length=32)
    started_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    duration_ms: float = Field(default=0.0)
    summary: str = Field(default="", max_length=SUMMARY_CHARS)


class ToolInvocation(SQLModel, table=True):
    """One bounded evidence tool call of a run."""

    __tablename__ = "tool_invocation"
    __table_args__ = (
        # Its index also serves lookups by run_id alone (the leading column).
        sa.UniqueConstraint("run_id", "seq", name="uq_tool_invocation_run_seq"),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(max_length=64, foreign_key="diagnosis_run.run_id", ondelete="CASCADE")
    session_id: str = Field(max_length=ID_CHARS)
    seq: int
    tool: str = Field(max_length=64)
    evidence_id: str | None = Field(default=None, max_length=64)
    status: str = Field(max_length=32)
    args_summary: str = Field(default="", max_length=SUMMARY_CHARS)
    result_summary: str = Field(default="", max_length=SUMMARY_CHARS)
    bytes: int = Field(default=0)
    duration_ms: float = Field(default=0.0)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class CaseLibrary(SQLModel, table=True):
    """A past diagnosis someone found useful; `diagnosis_id` is the run it came from."""

    __tablename__ = "case_library"
    __table_args__ = (
        sa.UniqueConstraint("case_id", name="uq_case_library_case_id"),
        # one case per run: a second useful feedback reuses it
        sa.UniqueConstraint("diagnosis_id", name="uq_case_library_diagnosis_id"),
        # the similar-case lookup reads one principal's newest cases
        sa.Index("ix_case_library_principal_updated", "principal", "updated_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    case_id: str = Field(max_length=64)
    query: str = Field(sa_type=sa.Text)
    answer: str = Field(sa_type=sa.Text)
    root_cause_service: str | None = Field(default=None, max_length=128)
    category: str | None = Field(default=None, max_length=64)
    diagnosis_id: str = Field(max_length=64)
    # The principal of the run's session; a case is only ever served to that same principal
    # (None-owned cases, from runs without authentication, only to callers without one).
    principal: str | None = Field(default=None, max_length=ID_CHARS)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    use_count: int = Field(default=0)


# The Core tables, for statements that bypass the ORM (the run store's hot path).
SESSIONS = cast(sa.Table, ChatSession.__table__)  # type: ignore[attr-defined]
RUNS = cast(sa.Table, DiagnosisRun.__table__)  # type: ignore[attr-defined]
STEPS = cast(sa.Table, AgentStep.__table__)  # type: ignore[attr-defined]
TOOLS = cast(sa.Table, ToolInvocation.__table__)  # type: ignore[attr-defined]
