"""Run-store contract: the same behaviour on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from persistence.records import RunNotFound, SessionNotFound
from persistence.runs import INTERRUPTED, RunStore
from persistence.tables import (
    SUMMARY_CHARS,
    AgentFlow,
    ChatSession,
    DiagnosisRun,
    RunOutcome,
    RunStatus,
)
from persistence.trace_rows import StepDraft, ToolDraft
from tests.support.stored_rows import add_session_without_runs
from tools.base import CaseSource


def _session_id() -> str:
    return f"sess-{uuid.uuid4().hex}"


async def _new_run(store: RunStore, session_id: str | None = None, query: str = "why?") -> str:
    sid = session_id or _session_id()
    return (await store.open_run(session_id=sid, query=query)).run_id


async def _add_empty_session(run_db: async_sessionmaker[AsyncSession], session_id: str) -> None:
    async with run_db() as db:
        await add_session_without_runs(await db.connection(), session_id)
        await db.commit()


async def test_two_runs_of_one_session_keep_separate_steps_tools_and_counts(
    run_store: RunStore,
) -> None:
    sid = _session_id()
    first = await _new_run(run_store, sid, "why is checkout slow?")
    second = await _new_run(run_store, sid, "and payments?")
    for node in ("router", "planner", "diagnose"):
        await run_store.append_trace_rows(run_id=first, steps=[StepDraft(node, "ok", node)], tools=[])
    await run_store.append_trace_rows(run_id=second, steps=[StepDraft("router", "ok")], tools=[])
    await run_store.append_trace_rows(run_id=first, steps=[], tools=[ToolDraft("query_metrics", "OK")])
    for n in range(3):
        await run_store.append_trace_rows(
            run_id=second, steps=[], tools=[ToolDraft("query_logs", "OK", evidence_id=f"logs-{n}")]
        )
    assert await run_store.finish_run(run_id=first, status=RunStatus.SUCCESS)
    assert await run_store.finish_run(run_id=second, status=RunStatus.SUCCESS)

    one = await run_store.load_trace(session_id=sid, run_id=first)
    two = await run_store.load_trace(session_id=sid, run_id=second)
    assert [s.node for s in one.steps] == ["router", "planner", "diagnose"]
    assert [s.seq for s in one.steps] == [1, 2, 3]
    assert [t.tool for t in one.tools] == ["query_metrics"]
    assert (one.run.step_count, one.run.tool_call_count) == (3, 1)
    assert [s.node for s in two.steps] == ["router"]
    assert [t.evidence_id for t in two.tools] == ["logs-0", "logs-1", "logs-2"]
    assert (two.run.step_count, two.run.tool_call_count) == (1, 3)
    listed = {r.run_id: r for r in await run_store.list_runs(session_id=sid)}
    assert set(listed) == {first, second}
    assert (listed[first].step_count, listed[second].tool_call_count) == (3, 3)


async def test_run_of_session_a_is_never_returned_for_session_b(
    run_store: RunStore, run_db: async_sessionmaker[AsyncSession]
) -> None:
    session_a, session_b = _session_id(), _session_id()
    run_a = await _new_run(run_store, session_a)
    await _add_empty_session(run_db, session_b)

    with pytest.raises(RunNotFound):
        await run_store.load_trace(session_id=session_b, run_id=run_a)
    assert await run_store.list_runs(session_id=session_b) == []
    with pytest.raises(RunNotFound):
        await run_store.bind_feedback(session_id=session_b, run_id=run_a, useful=True)
    trace = await run_store.load_trace(session_id=session_a, run_id=run_a)
    assert trace.feedback is None  # the refused feedback changed nothing


async def test_unknown_session_is_not_found_and_a_new_one_has_no_runs(
    run_store: RunStore, run_db: async_sessionmaker[AsyncSession]
) -> None:
    with pytest.raises(SessionNotFound):
        await run_store.list_runs(session_id=_session_id())
    assert await run_store.get_session(session_id=_session_id()) is None
    sid = _session_id()
    await _add_empty_session(run_db, sid)
    assert await run_store.list_runs(session_id=sid) == []


async def test_concurrent_open_run_on_one_session_creates_one_row(
    run_store: RunStore, run_db: async_sessionmaker[AsyncSession]
) -> None:
    sid = _session_id()
    runs = await asyncio.gather(*(run_store.open_run(session_id=sid, query="q") for _ in range(20)))
    assert {run.session_id for run in runs} == {sid}
    assert len({run.run_id for run in runs}) == 20
    async with run_db() as db:
        query = select(func.count()).select_from(ChatSession)
        count = (await db.exec(query.where(col(ChatSession.session_id) == sid))).one()
    assert count == 1


async def test_appended_batches_get_distinct_sequence_numbers(run_store: RunStore) -> None:
    # A run's recorder serialises its batches; concurrent batches belong to different runs.
    sid = _session_id()
    run_ids = [await _new_run(run_store, sid) for _ in range(3)]
    for _ in range(10):
        await asyncio.gather(
            *(run_store.append_trace_rows(run_id=r, steps=[], tools=[ToolDraft("t", "OK")]) for r in run_ids)
        )
    for run_id in run_ids:
        trace = await run_store.load_trace(session_id=sid, run_id=run_id)
        assert [t.seq for t in trace.tools] == list(range(1, 11))


async def test_finish_run_stores_the_result_once(run_store: RunStore) -> None:
    sid = _session_id()
    run_id = await _new_run(run_store, sid)
    payload = {"root_cause": "db pool exhausted", "findings": [{"text": "x", "evidence": ["m-1"]}]}
    changed = await run_store.finish_run(
        run_id=run_id,
        status=RunStatus.SUCCESS,
        outcome=RunOutcome.SUCCESS,
        answer=payload,
        answer_preview="db pool exhausted",
        content_type="diagnosis",
        route="complex",
        self_evaluation={"degraded": False, "evidence_retry_count": 0},
        orchestration_trace={"events": [{"node": "router"}]},
    )
    assert changed
    again = await run_store.finish_run(
        run_id=run_id, status=RunStatus.CANCELLED, cancel_reason="CLIENT_DISCONNECT"
    )
    assert not again
    trace = await run_store.load_trace(session_id=sid, run_id=run_id)
    assert trace.run.status == "SUCCESS" and trace.run.outcome == "SUCCESS"
    assert trace.run.cancel_reason is None
    assert trace.answer == payload
    assert trace.self_evaluation == {"degraded": False, "evidence_retry_count": 0}
    assert trace.orchestration_trace == {"events": [{"node": "router"}]}
    assert trace.run.finished_at is not None and trace.run.finished_at.tzinfo is not None
    await run_store.append_trace_rows(run_id=run_id, steps=[StepDraft("late", "ok")], tools=[])
    assert (await run_store.load_trace(session_id=sid, run_id=run_id)).steps == []
    assert await run_store.heartbeat(run_ids=[run_id]) == 0


async def test_finish_run_numbers_its_buffered_rows_after_those_already_stored(run_store: RunStore) -> None:
    sid = _session_id()
    run_id = await _new_run(run_store, sid)
    await run_store.append_trace_rows(run_id=run_id, steps=[StepDraft("router", "ok")], tools=[])
    await run_store.append_trace_rows(run_id=run_id, steps=[StepDraft("planner", "ok")], tools=[])
    steps = [StepDraft("executors", "ok"), StepDraft("diagnose", "ok")]
    tools = [ToolDraft("list_alerts", "OK", evidence_id="alerts-1"), ToolDraft("query_logs", "EMPTY")]
    assert await run_store.finish_run(run_id=run_id, status=RunStatus.SUCCESS, steps=steps, tools=tools)
    trace = await run_store.load_trace(session_id=sid, run_id=run_id)
    assert [(s.seq, s.node) for s in trace.steps] == [
        (1, "router"),
        (2, "planner"),
        (3, "executors"),
        (4, "diagnose"),
    ]
    assert [(t.seq, t.tool) for t in trace.tools] == [(1, "list_alerts"), (2, "query_logs")]
    assert (trace.run.step_count, trace.run.tool_call_count) == (4, 2)
    # A finished run takes no more rows, buffered or not.
    assert not await run_store.finish_run(
        run_id=run_id, status=RunStatus.FAILED, steps=[StepDraft("late", "ok")], tools=tools
    )
    again = await run_store.load_trace(session_id=sid, run_id=run_id)
    assert (len(again.steps), len(again.tools)) == (4, 2)


async def test_failed_run_keeps_sql_null_json_and_bounded_summaries(
    run_store: RunStore, run_db: async_sessionmaker[AsyncSession]
) -> None:
    sid = _session_id()
    run_id = await _new_run(run_store, sid)
    await run_store.append_trace_rows(
        run_id=run_id, steps=[StepDraft("planner", "ok", "x" * 5_000)], tools=[]
    )
    await run_store.finish_run(run_id=run_id, status=RunStatus.FAILED, failure_code="MODEL_DOWN")
    trace = await run_store.load_trace(session_id=sid, run_id=run_id)
    assert len(trace.steps[0].summary) == SUMMARY_CHARS
    assert trace.orchestration_trace is None and trace.answer is None
    async with run_db() as db:
        nulls = await db.exec(
            select(func.count())
            .select_from(DiagnosisRun)
            .where(
                col(DiagnosisRun.run_id) == run_id,
                col(DiagnosisRun.orchestration_trace).is_(None),
                col(DiagnosisRun.self_evaluation).is_(None),
            )
        )
        assert nulls.one() == 1  # SQL NULL, not JSON 'null'


async def test_sweep_finishes_only_orphaned_runs(run_db: async_sessionmaker[AsyncSession]) -> None:
    an_hour_ago = datetime.now(UTC) - timedelta(hours=1)
    dead = RunStore(run_db, worker_id="worker-dead", clock=lambda: an_hour_ago)
    me_in_the_past = RunStore(run_db, worker_id="worker-me", clock=lambda: an_hour_ago)
    other_live = RunStore(run_db, worker_id="worker-other")
    me = RunStore(run_db, worker_id="worker-me")
    sid = _session_id()
    orphan = await _new_run(dead, sid)
    await dead.append_trace_rows(run_id=orphan, steps=[StepDraft("router", "ok")], tools=[])
    finished_orphan = await _new_run(dead, sid)
    await dead.finish_run(run_id=finished_orphan, status=RunStatus.SUCCESS)
    mine = await _new_run(me_in_the_past, sid)
    others = await _new_run(other_live, sid)

    swept = await me.sweep_interrupted(stale_after_s=300)

    assert orphan in swept
    assert not {finished_orphan, mine, others} & set(swept)
    statuses = {r.run_id: r for r in await me.list_runs(session_id=sid)}
    assert statuses[orphan].status == "FAILED"
    assert statuses[orphan].failure_code == INTERRUPTED
    assert statuses[orphan].step_count == 1
    assert statuses[finished_orphan].status == "SUCCESS"
    assert statuses[mine].status == statuses[others].status == "RUNNING"
    assert orphan not in await me.sweep_interrupted(stale_after_s=300)


async def test_session_metadata_counts_message_pairs(run_store: RunStore) -> None:
    sid = _session_id()
    runs = [await run_store.open_run(session_id=sid, query="why?", principal="alice") for _ in range(2)]
    created = await run_store.get_session(session_id=sid)
    assert created is not None and created.message_pair_count == 0
    for run in runs:
        assert await run_store.finish_run(run_id=run.run_id, status=RunStatus.SUCCESS, message_pair=True)
    info = await run_store.get_session(session_id=sid)
    assert info is not None and info.message_pair_count == 2 and info.principal == "alice"
    assert info.created_at.tzinfo is not None and info.last_active_at >= created.last_active_at
    assert not await run_store.finish_run(run_id="run-unknown", status=RunStatus.SUCCESS, message_pair=True)


async def test_open_run_creates_the_session_and_the_run_in_one_step(run_store: RunStore) -> None:
    sid = _session_id()
    run = await run_store.open_run(session_id=sid, query="why?", principal="alice")
    assert run.status == "RUNNING" and run.session_id == sid
    again = await run_store.open_run(session_id=sid, query="and now?", principal="alice")
    assert [r.run_id for r in await run_store.list_runs(session_id=sid)] == [again.run_id, run.run_id]
    info = await run_store.get_session(session_id=sid)
    assert info is not None and info.principal == "alice"


async def test_open_run_on_another_principals_session_writes_nothing(run_store: RunStore) -> None:
    sid = _session_id()
    await run_store.open_run(session_id=sid, query="why?", principal="alice")
    with pytest.raises(SessionNotFound):
        await run_store.open_run(session_id=sid, query="mine?", principal="mallory")
    assert len(await run_store.list_runs(session_id=sid)) == 1


async def test_finishing_with_a_message_pair_counts_it_once(run_store: RunStore) -> None:
    sid = _session_id()
    run = await run_store.open_run(session_id=sid, query="why?")
    other = await run_store.open_run(session_id=sid, query="and?")
    assert await run_store.finish_run(run_id=run.run_id, status=RunStatus.SUCCESS, message_pair=True)
    assert not await run_store.finish_run(run_id=run.run_id, status=RunStatus.SUCCESS, message_pair=True)
    assert await run_store.finish_run(run_id=other.run_id, status=RunStatus.FAILED)
    info = await run_store.get_session(session_id=sid)
    assert info is not None and info.message_pair_count == 1


async def test_useful_feedback_grows_one_case_per_run(run_store: RunStore) -> None:
    sid = _session_id()
    word = uuid.uuid4().hex[:10]  # unique, so other tests' cases never rank first
    run_id = await _new_run(run_store, sid, f"why is {word} checkout slow")
    running_case = await run_store.create_or_reuse_case(run_id=run_id)
    assert running_case is None  # no released answer yet
    await run_store.finish_run(
        run_id=run_id,
        status=RunStatus.SUCCESS,
        outcome=RunOutcome.SUCCESS,
        answer={
            "content_type": "diagnosis_report",
            "payload": {"root_cause": {"service": "checkout", "category": "database"}},
        },
    )
    feedback = await run_store.bind_feedback(session_id=sid, run_id=run_id, useful=True, comment="spot on")
    assert feedback["useful"] is True and feedback["comment"] == "spot on"

    first = await run_store.create_or_reuse_case(run_id=run_id)
    second = await run_store.create_or_reuse_case(run_id=run_id)
    assert first is not None and second is not None
    assert first.created and not second.created
    assert first.case_id == second.case_id and second.diagnosis_id == run_id
    assert (first.root_cause_service, first.category) == ("checkout", "database")
    assert second.use_count == 2

    assert isinstance(run_store, CaseSource)
    found = await run_store.similar_cases(query=f"{word} checkout latency", limit=3, principal=None)
    assert found[0].diagnosis_id == run_id and found[0].score > 0
    assert await run_store.similar_cases(query=uuid.uuid4().hex, limit=3, principal=None) == []
    with pytest.raises(RunNotFound):
        await run_store.create_or_reuse_case(run_id="run-missing")

    fallback = await _new_run(run_store, sid, f"why is {word} slow again")
    await run_store.finish_run(
        run_id=fallback, status=RunStatus.SUCCESS, outcome=RunOutcome.FALLBACK, answer={"payload": {}}
    )
    assert await run_store.create_or_reuse_case(run_id=fallback) is None  # the fixed fallback is no case


async def test_aiops_runs_keep_their_flow(run_store: RunStore) -> None:
    sid = _session_id()
    run = await run_store.open_run(session_id=sid, query="scan", agent_flow=AgentFlow.AI_OPS)
    assert run.run_id.startswith("run-") and run.status == "RUNNING"
    assert run.created_at.tzinfo is not None
    [listed] = await run_store.list_runs(session_id=sid)
    assert listed.agent_flow == "AI_OPS"
