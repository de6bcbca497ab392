"""`RunStore`: the only code that reads or writes sessions, runs, steps, tool calls and cases.

Every method takes keyword arguments, owns its transaction (one synchronous function run by
`persistence.transactions`) and returns plain records.
Writes that race (session creation, finishing) are single conditional statements, so two workers
sharing one database cannot double-create or overwrite each other; a run's trace rows are written in
batches its one recorder serialises (`persistence.trace_rows`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import Session, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from persistence import records
from persistence.cases import CaseLibraryStore
from persistence.investigations import Investigation, recent_runs
from persistence.queries import count_of, is_running, run_row, session_row
from persistence.records import (
    CaseRecord,
    RunNotFound,
    RunSummary,
    RunTrace,
    SessionInfo,
    SessionNotFound,
    bounded,
)
from persistence.run_statements import (
    FINISH_RUN,
    INSERT_RUN,
    MESSAGE_PAIR_OF_RUN,
    PRINCIPAL_OF,
    RUN_ID,
    SESSION_ID,
    insert_session_if_new,
)
from persistence.tables import (
    ID_CHARS,
    PREVIEW_CHARS,
    RUNS,
    STEPS,
    SUMMARY_CHARS,
    TOOLS,
    AgentFlow,
    AgentStep,
    DiagnosisRun,
    RunOutcome,
    RunStatus,
    SessionStatus,
    ToolInvocation,
    utcnow,
)
from persistence.trace_rows import StepDraft, ToolDraft, insert_trace_rows
from persistence.transactions import Transactions
from tools.base import PastCase

INTERRUPTED = "INTERRUPTED"


class RunStore:
    """Sessions, runs and their trace rows in the application database."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        worker_id: str,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._tx = Transactions(sessions)
        self.worker_id = worker_id
        self._clock = clock
        self._cases = CaseLibraryStore(self._tx, clock=clock)

    # --- sessions --------------------------------------------------------------------------------

    async def open_run(
        self,
        *,
        session_id: str,
        query: str,
        principal: str | None = None,
        agent_flow: AgentFlow = AgentFlow.CHAT,
    ) -> RunSummary:
        """Create the session unless it exists (safe when many requests race on one id) and a new
        RUNNING run owned by this worker, in one transaction. A session of another principal is
        `SessionNotFound`, and then nothing is written."""
        row = self._new_run(session_id, query, agent_flow)

        def work(db: Session) -> None:
            # Core statements on the session's connection: every chat opens and finishes a run, and
            # the ORM's unit of work cost more CPU than the statements themselves.
            conn = db.connection()
            self._insert_session_if_new(conn, session_id, principal)
            owner = conn.execute(PRINCIPAL_OF, {SESSION_ID: session_id}).first()
            if owner is None or owner.principal != principal:
                db.rollback()
                raise SessionNotFound(session_id)
            _insert_run(conn, row)
            db.commit()

        await self._tx.run(work)
        return records.run_summary(row)

    async def get_session(self, *, session_id: str) -> SessionInfo | None:
        """The session's metadata, or None when unknown."""
        row = await self._tx.run(lambda db: session_row(db, session_id))
        return None if row is None else records.session_info(row)

    # --- run lifecycle ---------------------------------------------------------------------------

    async def append_trace_rows(
        self, *, run_id: str, steps: Sequence[StepDraft], tools: Sequence[ToolDraft]
    ) -> None:
        """Store a batch of a live run's steps and tool calls in one transaction (numbered after its
        stored rows); nothing is written to an unknown or finished run. Callers serialise batches
        of one run, as `finish_run(steps=...)` takes the rest."""

        def work(db: Session) -> None:
            insert_trace_rows(db.connection(), run_id=run_id, steps=steps, tools=tools)
            db.commit()

        await self._tx.run(work)

    async def heartbeat(self, *, run_ids: Collection[str]) -> int:
        """Mark these RUNNING runs as alive now (one statement); how many were still running."""
        if not run_ids:
            return 0
        now = self._clock()
        update = (
            sa.update(DiagnosisRun)
            .where(col(DiagnosisRun.run_id).in_(list(run_ids)), is_running())
            .values(heartbeat_at=now)
        )
        return await self._write(update)

    async def finish_run(
        self,
        *,
        run_id: str,
        status: RunStatus,
        outcome: RunOutcome | None = None,
        answer: Any = None,
        answer_preview: str | None = None,
        content_type: str | None = None,
        route: str | None = None,
        self_evaluation: Mapping[str, Any] | None = None,
        orchestration_trace: Mapping[str, Any] | None = None,
        failure_code: str | None = None,
        cancel_reason: str | None = None,
        steps: Sequence[StepDraft] = (),
        tools: Sequence[ToolDraft] = (),
        message_pair: bool = False,
    ) -> bool:
        """Finish a RUNNING run once, with its buffered steps and tool calls, in one transaction;
        False (nothing changed) when unknown or already finished. With `message_pair`, the same
        transaction counts the run as one question/answer pair of its session.

        `answer` is the released payload (JSON-serialisable). Counts come from this run's rows only.
        """
        if status is RunStatus.RUNNING:
            raise ValueError("a run is finished with a terminal status")
        values: dict[str, Any] = {
            "status": status.value,
            "outcome": None if outcome is None else outcome.value,
            "answer": None if answer is None else _answer_text(answer),
            "answer_preview": None if answer_preview is None else bounded(answer_preview, PREVIEW_CHARS),
            "content_type": content_type,
            "route": route,
            # fresh dicts: JSON columns are replaced, never mutated in place
            "self_evaluation": None if self_evaluation is None else dict(self_evaluation),
            "orchestration_trace": None if orchestration_trace is None else dict(orchestration_trace),
            "failure_code": failure_code,
            "cancel_reason": cancel_reason,
        }
        now = self._clock()
        values.update({RUN_ID: run_id, "finished_at": now, "updated_at": now})
        pair = {RUN_ID: run_id, "last_active_at": self._clock()} if message_pair else None

        def work(db: Session) -> bool:
            conn = db.connection()  # Core, as in `open_run`
            insert_trace_rows(conn, run_id=run_id, steps=steps, tools=tools)
            changed = conn.execute(FINISH_RUN, values).rowcount == 1
            if changed and pair is not None:
                conn.execute(MESSAGE_PAIR_OF_RUN, pair)
            if changed:
                db.commit()
            else:
                db.rollback()
            return changed

        return await self._tx.run(work)

    async def sweep_interrupted(
        self,
        *,
        stale_after_s: float,
        live_owner: str | None = None,
        live_runs: Collection[str] | None = None,
    ) -> list[str]:
        """Finish as FAILED/INTERRUPTED the RUNNING runs whose heartbeat is older than
        `stale_after_s`, except those of `live_owner` (default: this worker). With `live_runs`, the
        owner's own stale runs that are not among them are swept too (their task is gone).
        Returns their ids.
        """
        keep = self.worker_id if live_owner is None else live_owner
        cutoff = self._clock() - timedelta(seconds=stale_after_s)
        others = sa.or_(col(DiagnosisRun.owner).is_(None), col(DiagnosisRun.owner) != keep)
        if live_runs is not None:
            others = sa.or_(others, col(DiagnosisRun.run_id).not_in(list(live_runs)))
        update = (
            sa.update(DiagnosisRun)
            .where(
                is_running(),
                col(DiagnosisRun.heartbeat_at) < cutoff,
                others,
            )
            .values(
                status=RunStatus.FAILED.value,
                outcome=RunOutcome.FAILED.value,
                failure_code=INTERRUPTED,
                **self._closing_values(),
            )
            .returning(col(DiagnosisRun.run_id))
        )

        def work(db: Session) -> list[str]:
            swept = list(db.exec(update).scalars())
            db.commit()
            return swept

        return sorted(await self._tx.run(work))

    # --- reading ---------------------------------------------------------------------------------

    async def list_runs(self, *, session_id: str, limit: int = 200) -> list[RunSummary]:
        """The session's runs, newest first; [] without runs; `SessionNotFound` if unknown."""
        query = (
            select(DiagnosisRun)
            .where(col(DiagnosisRun.session_id) == session_id)
            .order_by(col(DiagnosisRun.created_at).desc(), col(DiagnosisRun.id).desc())
            .limit(limit)
        )

        def work(db: Session) -> list[DiagnosisRun]:
            if session_row(db, session_id) is None:
                raise SessionNotFound(session_id)
            return list(db.exec(query).all())

        return [records.run_summary(row) for row in await self._tx.run(work)]

    async def recent_runs(self, *, principal: str | None, limit: int) -> list[Investigation]:
        """The principal's newest runs across its sessions (`persistence.investigations`)."""
        return await self._tx.run(lambda db: recent_runs(db, principal, limit))

    async def load_trace(self, *, session_id: str, run_id: str) -> RunTrace:
        """One run of one session with its steps and tool calls; else `RunNotFound`."""

        def work(db: Session) -> RunTrace:
            run = run_row(db, session_id=session_id, run_id=run_id)
            session = session_row(db, session_id)
            if run is None or session is None:
                raise RunNotFound(run_id)
            steps = db.exec(
                select(AgentStep).where(col(AgentStep.run_id) == run_id).order_by(col(AgentStep.seq))
            )
            tools = db.exec(
                select(ToolInvocation)
                .where(col(ToolInvocation.run_id) == run_id)
                .order_by(col(ToolInvocation.seq))
            )
            return records.run_trace(session, run, list(steps.all()), list(tools.all()))

        return await self._tx.run(work)

    # --- feedback and cases ----------------------------------------------------------------------

    async def bind_feedback(
        self, *, session_id: str, run_id: str, useful: bool, comment: str | None = None
    ) -> dict[str, Any]:
        """Store feedback on a run of this session (replacing earlier feedback); `RunNotFound`
        (and nothing changed) when the run is not this session's."""
        feedback = {
            "useful": useful,
            "comment": None if comment is None else bounded(comment, SUMMARY_CHARS),
            "at": self._clock().isoformat(),
        }
        update = (
            sa.update(DiagnosisRun)
            .where(col(DiagnosisRun.run_id) == run_id, col(DiagnosisRun.session_id) == session_id)
            .values(feedback=feedback, updated_at=self._clock())
        )
        if await self._write(update) != 1:
            raise RunNotFound(run_id)
        return feedback

    async def create_or_reuse_case(
        self, *, run_id: str, root_cause_service: str | None = None, category: str | None = None
    ) -> CaseRecord | None:
        """The case of this run; see `CaseLibraryStore.create_or_reuse_case`."""
        return await self._cases.create_or_reuse_case(
            run_id=run_id, root_cause_service=root_cause_service, category=category
        )

    async def similar_cases(self, *, query: str, limit: int, principal: str | None) -> list[PastCase]:
        """`principal`'s past cases sharing words with `query`, best first (`tools.base.CaseSource`)."""
        return await self._cases.similar_cases(query=query, limit=limit, principal=principal)

    # --- internals -------------------------------------------------------------------------------

    def _insert_session_if_new(self, conn: Connection, session_id: str, principal: str | None) -> None:
        if not session_id or len(session_id) > ID_CHARS:
            raise ValueError(f"session id must be 1..{ID_CHARS} characters")
        now = self._clock()
        insert_session_if_new(
            conn,
            {
                "session_id": session_id,
                "principal": principal,
                "status": SessionStatus.ACTIVE.value,
                "message_pair_count": 0,
                "created_at": now,
                "last_active_at": now,
            },
        )

    def _new_run(self, session_id: str, query: str, agent_flow: AgentFlow) -> DiagnosisRun:
        now = self._clock()
        return DiagnosisRun(
            run_id=f"run-{uuid.uuid4().hex}",
            session_id=session_id,
            agent_flow=agent_flow.value,
            query=query,
            status=RunStatus.RUNNING.value,
            owner=self.worker_id,
            heartbeat_at=now,
            created_at=now,
            updated_at=now,
        )

    def _closing_values(self) -> dict[str, Any]:
        """Finish time and counts computed from the run's own rows (correlated subqueries)."""
        now = self._clock()
        return {
            "finished_at": now,
            "updated_at": now,
            "step_count": count_of(STEPS),
            "tool_call_count": count_of(TOOLS),
        }

    async def _write(self, statement: sa.Update) -> int:
        def work(db: Session) -> int:
            result = db.exec(statement)
            db.commit()
            return int(result.rowcount)

        return await self._tx.run(work)


def _insert_run(conn: Connection, row: DiagnosisRun) -> None:
    """INSERT `row` with Core (the database numbers `id`): no ORM unit of work on the hot path."""
    values = {column.name: getattr(row, column.name) for column in RUNS.columns if column.name != "id"}
    conn.execute(INSERT_RUN, values)


def _answer_text(answer: Any) -> str:
    """The released answer as JSON text; orjson first (an answer with chart points is tens of KB)."""
    try:
        return orjson.dumps(answer).decode()
    except TypeError:  # beyond orjson (integers over 64 bits, non-string keys)
        return json.dumps(answer, ensure_ascii=False)
