"""Plain records the run store returns (never ORM rows), and its typed not-found errors."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from persistence.tables import AgentStep, CaseLibrary, ChatSession, DiagnosisRun, ToolInvocation


class RecordNotFound(Exception):
    """Base of the store's not-found errors; the message names no other session's data."""


class SessionNotFound(RecordNotFound):
    """No chat session with that id."""


class RunNotFound(RecordNotFound):
    """No run with that id in that session (a run of another session counts as missing)."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Chat-session metadata."""

    session_id: str
    principal: str | None
    status: str
    message_pair_count: int
    created_at: datetime
    last_active_at: datetime
    expires_at: datetime | None


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One run without its steps, tool calls or answer body."""

    run_id: str
    session_id: str
    agent_flow: str
    query: str
    status: str
    outcome: str | None
    route: str | None
    answer_preview: str | None
    content_type: str | None
    step_count: int
    tool_call_count: int
    failure_code: str | None
    cancel_reason: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class StepRow:
    """One stored graph step."""

    seq: int
    node: str
    status: str
    started_at: datetime
    duration_ms: float
    summary: str


@dataclass(frozen=True, slots=True)
class ToolRow:
    """One stored tool invocation."""

    seq: int
    tool: str
    evidence_id: str | None
    status: str
    args_summary: str
    result_summary: str
    bytes: int
    duration_ms: float
    created_at: datetime


@dataclass(frozen=True, slots=True)
class RunTrace:
    """Everything stored about one run of one session."""

    session: SessionInfo
    run: RunSummary
    answer: Any  # the released payload, parsed back from JSON; None while running or failed
    self_evaluation: dict[str, Any] | None
    orchestration_trace: dict[str, Any] | None
    feedback: dict[str, Any] | None
    steps: list[StepRow]
    tools: list[ToolRow]


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """A case-library row."""

    case_id: str
    diagnosis_id: str
    query: str
    answer: str
    root_cause_service: str | None
    category: str | None
    use_count: int
    created: bool  # False when an existing case of the same run was reused


def bounded(text: str | None, limit: int) -> str:
    """`text` cut to `limit` characters, marked with an ellipsis when cut."""
    value = text or ""
    return value if len(value) <= limit else value[: limit - 1] + "…"


def as_utc(value: datetime) -> datetime:
    """SQLite returns naive datetimes for timezone-aware columns; everything stored is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _as_utc_or_none(value: datetime | None) -> datetime | None:
    return None if value is None else as_utc(value)


def session_info(row: ChatSession) -> SessionInfo:
    return SessionInfo(
        session_id=row.session_id,
        principal=row.principal,
        status=row.status,
        message_pair_count=row.message_pair_count,
        created_at=as_utc(row.created_at),
        last_active_at=as_utc(row.last_active_at),
        expires_at=_as_utc_or_none(row.expires_at),
    )


def run_summary(row: DiagnosisRun) -> RunSummary:
    return RunSummary(
        run_id=row.run_id,
        session_id=row.session_id,
        agent_flow=row.agent_flow,
        query=row.query,
        status=row.status,
        outcome=row.outcome,
        route=row.route,
        answer_preview=row.answer_preview,
        content_type=row.content_type,
        step_count=row.step_count,
        tool_call_count=row.tool_call_count,
        failure_code=row.failure_code,
        cancel_reason=row.cancel_reason,
        created_at=as_utc(row.created_at),
        updated_at=as_utc(row.updated_at),
        finished_at=_as_utc_or_none(row.finished_at),
    )


def step_row(row: AgentStep) -> StepRow:
    return StepRow(
        seq=row.seq,
        node=row.node,
        status=row.status,
        started_at=as_utc(row.started_at),
        duration_ms=row.duration_ms,
        summary=row.summary,
    )


def tool_row(row: ToolInvocation) -> ToolRow:
    return ToolRow(
        seq=row.seq,
        tool=row.tool,
        evidence_id=row.evidence_id,
        status=row.status,
        args_summary=row.args_summary,
        result_summary=row.result_summary,
        bytes=row.bytes,
        duration_ms=row.duration_ms,
        created_at=as_utc(row.created_at),
    )


def run_trace(
    session: ChatSession, run: DiagnosisRun, steps: list[AgentStep], tools: list[ToolInvocation]
) -> RunTrace:
    return RunTrace(
        session=session_info(session),
        run=run_summary(run),
        answer=None if run.answer is None else json.loads(run.answer),
        self_evaluation=run.self_evaluation,
        orchestration_trace=run.orchestration_trace,
        feedback=run.feedback,
        steps=[step_row(step) for step in steps],
        tools=[tool_row(tool) for tool in tools],
    )


def case_record(row: CaseLibrary, *, created: bool) -> CaseRecord:
    return CaseRecord(
        case_id=row.case_id,
        diagnosis_id=row.diagnosis_id,
        query=row.query,
        answer=row.answer,
        root_cause_service=row.root_cause_service,
        category=row.category,
        use_count=row.use_count,
        created=created,
    )
