"""The case library: cases grown from useful runs, and the similar-case lookup runs consult."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from persistence import records
from persistence.case_ranking import overlap_score, tokens
from persistence.dialects import insert_for
from persistence.records import CaseRecord, RunNotFound, bounded
from persistence.tables import CaseLibrary, DiagnosisRun
from tools.base import PastCase

_CASE_CANDIDATES = 500  # newest cases ranked per similarity query (bounded work per call)


class CaseLibraryStore:
    """Reads and writes `case_library`; reached through `RunStore`, which owns every table."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, clock: Callable[[], datetime]) -> None:
        self._sessions = sessions
        self._clock = clock

    async def create_or_reuse_case(
        self, *, run_id: str, root_cause_service: str | None = None, category: str | None = None
    ) -> CaseRecord | None:
        """The case of this run (`diagnosis_id = run_id`): created once, reused (use_count + 1)
        after. None when the run released no answer; `RunNotFound` when there is no such run."""
        async with self._sessions() as db:
            query = select(DiagnosisRun).where(col(DiagnosisRun.run_id) == run_id)
            run = (await db.exec(query)).first()
            if run is None:
                raise RunNotFound(run_id)
            if run.answer is None:
                return None
            now = self._clock()
            insert = insert_for(db)(CaseLibrary).values(
                case_id=f"case-{uuid.uuid4().hex}",
                query=run.query,
                answer=run.answer,
                root_cause_service=bounded(root_cause_service, 128)
                or _payload_text(run.answer, "root_cause_service"),
                category=bounded(category, 64) or _payload_text(run.answer, "category"),
                diagnosis_id=run_id,
                created_at=now,
                updated_at=now,
                use_count=1,
            )
            # the unique diagnosis_id makes two racing feedbacks create one case
            insert = insert.on_conflict_do_nothing(index_elements=["diagnosis_id"])
            inserted = await db.exec(insert.returning(col(CaseLibrary.id)))
            created = inserted.first() is not None  # rowcount is not reliable for this on psycopg
            if not created:
                await db.exec(
                    sa.update(CaseLibrary)
                    .where(col(CaseLibrary.diagnosis_id) == run_id)
                    .values(use_count=col(CaseLibrary.use_count) + 1, updated_at=now)
                )
            await db.commit()
            query_case = select(CaseLibrary).where(col(CaseLibrary.diagnosis_id) == run_id)
            case = (await db.exec(query_case)).one()
        return records.case_record(case, created=created)

    async def similar_cases(self, *, query: str, limit: int) -> list[PastCase]:
        """Past cases sharing words with `query`, best first (satisfies `tools.base.CaseSource`)."""
        question = tokens(query)
        if not question or limit <= 0:
            return []
        newest = select(CaseLibrary).order_by(col(CaseLibrary.updated_at).desc()).limit(_CASE_CANDIDATES)
        async with self._sessions() as db:
            rows = (await db.exec(newest)).all()
        scored = [(overlap_score(question, tokens(row.query)), row) for row in rows]
        ranked = sorted((pair for pair in scored if pair[0] > 0), key=lambda pair: -pair[0])
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
            for score, row in ranked[:limit]
        ]


def _payload_text(answer_json: str, key: str) -> str | None:
    """A short string field of the released payload, at its top level or one level down."""
    payload = json.loads(answer_json)
    if not isinstance(payload, dict):
        return None
    candidates = [payload, *(v for v in payload.values() if isinstance(v, dict))]
    for mapping in candidates:
        value = mapping.get(key)
        if isinstance(value, str) and value:
            return bounded(value, 64)
    return None
