"""The principal's recent runs across its sessions, for the Investigations page.

One bounded query: runs joined to their session's owner, newest first. The root cause is read from
the stored answer (a diagnosis report's root-cause statement, else the answer's summary), so the list
needs no column of its own.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from sqlmodel import Session, col, select

from persistence.records import RunSummary, run_summary
from persistence.tables import ChatSession, DiagnosisRun

ROOT_CAUSE_CHARS = 500


class Investigation(NamedTuple):
    run: RunSummary
    root_cause: str | None


def root_cause_of(answer_json: str | None) -> str | None:
    """A released answer's root cause in one line: the report's statement, else its summary."""
    if not answer_json:
        return None
    try:
        answer: Any = json.loads(answer_json)
    except ValueError:
        return None
    payload = answer.get("payload") if isinstance(answer, dict) else None
    if not isinstance(payload, dict):
        return None
    root = payload.get("root_cause")
    text = root.get("statement") if isinstance(root, dict) else payload.get("summary")
    return str(text)[:ROOT_CAUSE_CHARS] if text else None


def recent_runs(db: Session, principal: str | None, limit: int) -> list[Investigation]:
    """Newest first; `principal` None (no authentication) lists every session's runs."""
    query = (
        select(DiagnosisRun)
        .join(ChatSession, col(ChatSession.session_id) == col(DiagnosisRun.session_id))
        .order_by(col(DiagnosisRun.created_at).desc(), col(DiagnosisRun.id).desc())
        .limit(limit)
    )
    if principal is not None:
        query = query.where(col(ChatSession.principal) == principal)
    return [Investigation(run_summary(row), root_cause_of(row.answer)) for row in db.exec(query).all()]
