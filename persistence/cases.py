"""The case library: cases grown from useful runs, and the similar-case lookup runs consult.

A case belongs to the principal of its run's session and is only ever served to that principal;
cases of runs without one (no authentication configured) form the shared library of such callers.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

from persistence import records
from persistence.case_ranking import overlap_score, tokens
from persistence.dialects import insert_for
from persistence.records import CaseRecord, RunNotFound, bounded
from persistence.tables import CaseLibrary, ChatSession, DiagnosisRun
from persistence.transactions import Transactions
from tools.base import PastCase

_CASE_CANDIDATES = 500  # newest cases ranked per similarity query (bounded work per call)


class CaseLibraryStore:
    """Reads and writes `case_library`; reached through `RunStore`, which owns every table."""

    def __init__(self, transactions: Transactions, *, clock: Callable[[], datetime]) -> None:
        self._tx = transactions
        self._clock = clock

    async def create_or_reuse_case(
        self, *, run_id: str, root_cause_service: str | None = None, category: str | None = None
    ) -> CaseRecord | None:
        """The case of this run (`diagnosis_id = run_id`), owned by the principal of the run's
        session: created once, reused (use_count + 1) after. None when the run released no
        diagnosis (no answer, or only the safe fallback); `RunNotFound` when there is no such run."""

        def work(db: Session) -> CaseRecord | None:
            query = (
                select(DiagnosisRun, ChatSession.principal)
                .join(ChatSession, col(ChatSession.session_id) == col(DiagnosisRun.session_id))
                .where(col(DiagnosisRun.run_id) == run_id)
            )
            found = db.exec(query).first()
            if found is None:
                raise RunNotFound(run_id)
            run, principal = found
            if run.answer is None or run.outcome != "SUCCESS":
                return None
            root = _root_cause(run.answer)
            now = self._clock()
            insert = insert_for(db)(CaseLibrary).values(
                case_id=f"case-{uuid.uuid4().hex}",
                query=run.query,
                answer=run.answer,
                root_cause_service=bounded(root_cause_service, 128) or root.get("service"),
                category=bounded(category, 64) or root.get("category"),
                diagnosis_id=run_id,
                # the owner comes from the stored session, never from the caller
                principal=principal,
                created_at=now,
                updated_at=now,
                use_count=1,
            )
            # the unique diagnosis_id makes two racing feedbacks create one case
            insert = insert.on_conflict_do_nothing(index_elements=["diagnosis_id"])
            inserted = db.exec(insert.returning(col(CaseLibrary.id)))
            created = inserted.first() is not None  # rowcount is not reliable for this on psycopg
            if not created:
                db.exec(
                    sa.update(CaseLibrary)
                    .where(col(CaseLibrary.diagnosis_id) == run_id)
                    .values(use_count=col(CaseLibrary.use_count) + 1, updated_at=now)
                )
            db.commit()
            query_case = select(CaseLibrary).where(col(CaseLibrary.diagnosis_id) == run_id)
            case = db.exec(query_case).one()
            return records.case_record(case, created=created)

        return await self._tx.run(work)

    async def similar_cases(self, *, query: str, limit: int, principal: str | None) -> list[PastCase]:
        """`principal`'s past cases sharing words with `query`, best first (satisfies
        `tools.base.CaseSource`). None reads only cases created without a principal."""
        question = tokens(query)
        if not question or limit <= 0:
            return []
        owned = _owned_by(principal)
        # Rank on the queries alone; load whole rows (answers included) only for the best few.
        newest = (
            select(CaseLibrary.id, CaseLibrary.query)
            .where(owned)
            .order_by(col(CaseLibrary.updated_at).desc())
            .limit(_CASE_CANDIDATES)
        )

        def work(db: Session) -> tuple[dict[int | None, float], list[CaseLibrary]]:
            candidates = db.exec(newest).all()
            scores = {row_id: overlap_score(question, tokens(text)) for row_id, text in candidates}
            best = sorted((i for i, score in scores.items() if score > 0), key=lambda i: -scores[i])[:limit]
            # the owner is checked again on the rows served, not only on the ranked candidates
            chosen = select(CaseLibrary).where(col(CaseLibrary.id).in_(best), owned)
            return scores, list(db.exec(chosen).all()) if best else []

        scores, rows = await self._tx.run(work)
        ranked = sorted(
            ((scores[row.id], row) for row in rows if row.id is not None), key=lambda pair: -pair[0]
        )
        return [
            PastCase(
                case_id=row.case_id,
                query=row.query,
                answer=row.answer,
                root_cause_service=row.root_cause_service,
                category=row.category,
                diagnosis_id=row.diagnosis_id,
                score=score,
            )
            for score, row in ranked
        ]


def _owned_by(principal: str | None) -> sa.ColumnElement[bool]:
    # `= NULL` is never true in SQL: the unauthenticated library is matched with IS NULL
    owner = col(CaseLibrary.principal)
    return owner.is_(None) if principal is None else owner == principal


def _root_cause(answer_json: str) -> dict[str, str]:
    """Service and category of the released report's root cause (bounded), when it names one."""
    content = json.loads(answer_json)
    payload = content.get("payload") if isinstance(content, dict) else None
    root = payload.get("root_cause") if isinstance(payload, dict) else None
    if not isinstance(root, dict):
        return {}
    limits = {"service": 128, "category": 64}
    return {
        key: bounded(root[key], size)
        for key, size in limits.items()
        if isinstance(root.get(key), str) and root[key]
    }
