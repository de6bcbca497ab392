"""Run-store contract for a live run's trace batches, on SQLite and PostgreSQL: a batch is numbered
after the rows already stored, the outcome's rows after the batches, and nothing reaches a run that
is finished (or unknown); a swept run counts the rows its batches stored."""

from __future__ import annotations

import uuid

from persistence.runs import INTERRUPTED, RunStore
from persistence.tables import RunStatus
from persistence.trace_rows import StepDraft, ToolDraft


async def _running(store: RunStore) -> tuple[str, str]:
    session_id = f"sess-{uuid.uuid4().hex}"
    run = await store.open_run(session_id=session_id, query="why is checkout slow?")
    return session_id, run.run_id


async def test_batches_then_the_outcome_are_numbered_in_order(run_store: RunStore) -> None:
    session_id, run_id = await _running(run_store)
    await run_store.append_trace_rows(
        run_id=run_id, steps=[StepDraft("router", "ok"), StepDraft("planner", "ok")], tools=[]
    )
    await run_store.append_trace_rows(
        run_id=run_id, steps=[StepDraft("executors", "ok")], tools=[ToolDraft("query_metrics", "OK")]
    )
    assert await run_store.finish_run(
        run_id=run_id,
        status=RunStatus.SUCCESS,
        steps=[StepDraft("diagnose", "ok")],
        tools=[ToolDraft("query_logs", "OK")],
    )
    trace = await run_store.load_trace(session_id=session_id, run_id=run_id)
    assert [(s.seq, s.node) for s in trace.steps] == [
        (1, "router"),
        (2, "planner"),
        (3, "executors"),
        (4, "diagnose"),
    ]
    assert [(t.seq, t.tool) for t in trace.tools] == [(1, "query_metrics"), (2, "query_logs")]
    assert (trace.run.step_count, trace.run.tool_call_count) == (4, 2)


async def test_a_batch_never_reaches_a_finished_or_unknown_run(run_store: RunStore) -> None:
    session_id, run_id = await _running(run_store)
    await run_store.finish_run(run_id=run_id, status=RunStatus.CANCELLED, cancel_reason="CLIENT_DISCONNECT")
    await run_store.append_trace_rows(run_id=run_id, steps=[StepDraft("late", "ok")], tools=[])
    await run_store.append_trace_rows(run_id="run-unknown", steps=[StepDraft("x", "ok")], tools=[])
    trace = await run_store.load_trace(session_id=session_id, run_id=run_id)
    assert trace.steps == [] and trace.run.step_count == 0


async def test_an_interrupted_run_keeps_and_counts_the_rows_its_batches_stored(run_store: RunStore) -> None:
    session_id, run_id = await _running(run_store)
    await run_store.append_trace_rows(
        run_id=run_id, steps=[StepDraft("router", "ok")], tools=[ToolDraft("list_alerts", "OK")]
    )
    # The worker died: another one sweeps the run without a heartbeat.
    swept = await run_store.sweep_interrupted(stale_after_s=0.0, live_owner="another-worker")
    assert run_id in swept
    trace = await run_store.load_trace(session_id=session_id, run_id=run_id)
    assert (trace.run.status, trace.run.failure_code) == ("FAILED", INTERRUPTED)
    assert [s.node for s in trace.steps] == ["router"] and [t.tool for t in trace.tools] == ["list_alerts"]
    assert (trace.run.step_count, trace.run.tool_call_count) == (1, 1)
