"""A run's steps and tool invocations, buffered while it runs and written in batches.

A live run's rows are stored at most a second after they finish (one batch per second at most) and the
rest in the transaction that finishes the run: a sub-second run stays at a handful of transactions,
and a process that dies mid-run loses only its last second of rows (the sweep marks it INTERRUPTED).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy.engine import Connection

from persistence.records import bounded
from persistence.run_statements import INSERT_ROWS, RUN_ID, RUNNING_WITH_LAST_SEQS
from persistence.tables import STEPS, SUMMARY_CHARS, TOOLS, utcnow


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


def insert_trace_rows(
    conn: Connection, *, run_id: str, steps: Sequence[StepDraft], tools: Sequence[ToolDraft]
) -> None:
    """Append the drafts to a RUNNING run inside the caller's transaction (numbered after any rows
    already stored); nothing is written to an unknown or finished run."""
    if not steps and not tools:
        return
    # One round trip for the run's state and both tables' last numbers.
    found = conn.execute(RUNNING_WITH_LAST_SEQS, {RUN_ID: run_id}).first()
    if found is None:
        return
    session_id, last_step, last_tool = cast(tuple[str, int, int], found)
    _insert(conn, STEPS.name, run_id, session_id, int(last_step), [draft.row() for draft in steps])
    _insert(conn, TOOLS.name, run_id, session_id, int(last_tool), [draft.row() for draft in tools])


def _insert(
    conn: Connection,
    table: str,
    run_id: str,
    session_id: str,
    last_seq: int,
    rows: list[dict[str, Any]],
) -> None:
    if not rows:
        return
    numbered = [
        {"run_id": run_id, "session_id": session_id, "seq": last_seq + 1 + i, **row}
        for i, row in enumerate(rows)
    ]
    conn.execute(INSERT_ROWS[table], numbered)
