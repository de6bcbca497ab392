"""Query fragments the run store shares between its methods."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Session, col, select

from persistence.tables import RUNS, ChatSession, DiagnosisRun, RunStatus


def is_running() -> sa.ColumnElement[bool]:
    return col(DiagnosisRun.status) == RunStatus.RUNNING.value


def count_of(table: sa.Table) -> sa.ScalarSelect[int]:
    return (
        sa.select(sa.func.count()).select_from(table).where(table.c.run_id == RUNS.c.run_id).scalar_subquery()
    )


def session_row(db: Session, session_id: str) -> ChatSession | None:
    query = select(ChatSession).where(col(ChatSession.session_id) == session_id)
    return db.exec(query).first()


def run_row(db: Session, *, session_id: str, run_id: str) -> DiagnosisRun | None:
    query = select(DiagnosisRun).where(
        col(DiagnosisRun.session_id) == session_id, col(DiagnosisRun.run_id) == run_id
    )
    return db.exec(query).first()
