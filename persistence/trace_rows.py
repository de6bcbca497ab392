"""A run's steps and tool invocations, buffered while it runs and written with its outcome.

Writing them in the transaction that finishes the run keeps a run at a handful of transactions; a
process that dies mid-run loses only rows of a run the sweep then marks INTERRUPTED.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

import sqlalchemy as sa
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from persistence.records import bounded
from persistence.tables import SUMMARY_CHARS, AgentStep, DiagnosisRun, ToolInvocation, utcnow

_RUNS = cast(sa.Table, DiagnosisRun.__table__)  # type: ignore[attr-defined]
_STEPS = cast(sa.Table, AgentStep.__table__)  # type: ignore[attr-defined]
_TOOLS = cast(sa.Table, ToolInvocation.__table__)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class StepDraft:
    node: str
    status: str
    summary: str = ""
    duration_ms: float = 0.0
    started_at: datetime = field(default_factory=utcnow)

    def row(self) -> dict[str, Any]:
        return {
            "node": bounded(self.node, 64),
            "status": bounded(self.status, 32),
            "summary": bounded(self.summary, SUMMARY_CHARS),
            "duration_ms": float(self.duration_ms),
            "started_at": self.started_at,
        }


@dataclass(frozen=True, slots=True)
class ToolDraft:
    tool: str
    status: str
    evidence_id: str | None = None
    args_summary: str = ""
    result_summary: str = ""
    bytes: int = 0
    duration_ms: float = 0.0
    created_at: datetime = field(default_factory=utcnow)

    def row(self) -> dict[str, Any]:
        return {
            "tool": bounded(self.tool, 64),
            "status": bounded(self.status, 32),
            "evidence_id": None if self.evidence_id is None else bounded(self.evidence_id, 64),
            "args_summary": bounded(self.args_summary, SUMMARY_CHARS),
            "result_summary": bounded(self.result_summary, SUMMARY_CHARS),
            "bytes": int(self.bytes),
            "duration_ms": float(self.duration_ms),
            "created_at": self.created_at,
        }


async def insert_trace_rows(
    db: AsyncSession, *, run_id: str, steps: Sequence[StepDraft], tools: Sequence[ToolDraft]
) -> None:
    """Append the drafts to a RUNNING run inside the caller's transaction (numbered after any rows
    already stored); nothing is written to an unknown or finished run."""
    if not steps and not tools:
        return
    running = select(_RUNS.c.session_id).where(_RUNS.c.run_id == run_id, _RUNS.c.status == "RUNNING")
    session_id = (await db.exec(running)).first()
    if session_id is None:
        return
    await _insert(db, _STEPS, run_id, session_id, [draft.row() for draft in steps])
    await _insert(db, _TOOLS, run_id, session_id, [draft.row() for draft in tools])


async def _insert(
    db: AsyncSession, table: sa.Table, run_id: str, session_id: str, rows: list[dict[str, Any]]
) -> None:
    if not rows:
        return
    last = select(sa.func.coalesce(sa.func.max(table.c.seq), 0)).where(table.c.run_id == run_id)
    first_seq = int((await db.exec(last)).one()) + 1
    numbered = [
        {"run_id": run_id, "session_id": session_id, "seq": first_seq + i, **row}
        for i, row in enumerate(rows)
    ]
    await db.exec(sa.insert(table), params=numbered)
