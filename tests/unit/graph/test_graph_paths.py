"""Walks each path of the diagram through the compiled graph with a fake toolbox."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from graph.analysts.base import Draft, Finding, ModelMeter, Plan, PlannedCall, Repair, RootCause
from graph.build import build_graph
from graph.context import GraphBudgets
from graph.nodes.fallback.render import FALLBACK_MESSAGE
from graph.runner import DiagnosisRunner, GraphRun, RunFailed, RunParts, RunRequest
from tests.unit.graph.factories import (
    FakeToolbox,
    RecordingObserver,
    ScriptedAnalyst,
    incident_answers,
    run_parts,
)

GRAPH = build_graph()


def _start(query: str, parts: RunParts, observer: Any = None, **request: Any) -> GraphRun:
    runner = DiagnosisRunner(GRAPH, recursion_limit=60)
    run = RunRequest(run_id="run-1", session_id="session-1", query=query, **request)
    return runner.start(run, parts, observer or RecordingObserver())


def _bad_draft() -> Draft:
    return Draft(
        summary="db is down.",
        root_cause=RootCause(service="db", category="x", statement="db.", confidence=0.5),
        findings=[Finding(statement="db failed.", evidence_ids=["alerts-99"])],
    )


def _good_draft() -> Draft:
    return Draft(
        summary="Root cause: db.",
        root_cause=RootCause(
            service="db", category="connection_pool_exhaustion", statement="db ran out.", confidence=0.7
        ),
        findings=[Finding(statement="ConnectionsExhausted fired on db.", evidence_ids=["alerts-1"])],
    )


async def test_greeting_takes_the_short_path_and_still_passes_the_guards() -> None:
    toolbox = FakeToolbox()
    result = await _start("hello!", run_parts(toolbox)).result()
    assert result.route == "simple"
    assert result.content["content_type"] == "answer"
    assert result.trace["path"] == [
        "router",
        "planner",
        "diagnose",
        "evidence_guard",
        "semantic_guard",
        "composer",
    ]
    assert toolbox.calls == []


async def test_how_to_question_answers_from_runbooks_with_sources() -> None:
    result = await _start("How do I handle exhausted db connections?", run_parts()).result()
    assert result.route == "simple"
    payload = result.content["payload"]
    assert [s["id"] for s in payload["sources"]] == ["knowledge-1"]
    assert "db-connections.md" in payload["text"]


async def test_composer_path_names_root_cause_rules_out_red_herring_and_traces_it() -> None:
    observer = RecordingObserver()
    result = await _start("Why is the api failing?", run_parts(), observer).result()
    payload = result.content["payload"]
    assert result.outcome == "SUCCESS" and not result.degraded
    assert payload["root_cause"]["service"] == "db"
    assert [item["service"] for item in payload["ruled_out"]] == ["batch"]
    assert all(finding["evidence_ids"] for finding in payload["findings"])
    trace = result.trace
    assert trace["termination_reason"] == "COMPOSED"
    assert trace["final_node"] == "composer"
    assert trace["transitions"][0] == {"from": "__start__", "to": "router"}
    assert trace["transitions"][-1] == {"from": "composer", "to": "__end__"}
    assert trace["tool_calls"] == len(observer.tools) == result.tool_calls
    codes = observer.statuses
    assert codes[0] == "ROUTING" and codes[-1] == "COMPOSING" and "VERIFYING" in codes


async def test_repair_fixes_a_draft_citing_an_unknown_id() -> None:
    analyst = ScriptedAnalyst(drafts=[_bad_draft()], repairs=[Repair(draft=_good_draft())])
    result = await _start("Why is the api failing?", run_parts(analyst=analyst)).result()
    assert result.outcome == "SUCCESS"
    assert result.trace["repair_count"] == 1
    path = result.trace["path"]
    assert path[path.index("evidence_guard") + 1] == "repair"
    assert path[-3:] == ["evidence_guard", "semantic_guard", "composer"]
    # The stored self-evaluation says what the repair changed: the first pass's rejection.
    guard = result.self_evaluation["evidence_guard"]
    assert guard["passed"] is True
    assert any("unknown evidence id" in violation for violation in guard["repaired"])


async def test_repair_can_gather_targeted_evidence_once() -> None:
    bad = Draft(
        summary="See findings.", findings=[Finding(statement="batch is saturated.", evidence_ids=["logs-2"])]
    )
    analyst = ScriptedAnalyst(drafts=[bad])
    toolbox = FakeToolbox()
    result = await _start("Why is the api failing?", run_parts(toolbox, analyst=analyst)).result()
    assert result.trace["evidence_retry_count"] == 1
    assert ("query_logs", {"service": "batch", "window_minutes": 120}) in toolbox.calls
    path = result.trace["path"]
    assert path[path.index("repair") + 1] == "planner"


async def test_repeated_bad_drafts_end_in_fallback_without_draft_text() -> None:
    analyst = ScriptedAnalyst(drafts=[_bad_draft()], repairs=[Repair(draft=_bad_draft())] * 2)
    result = await _start("Why is the api failing?", run_parts(analyst=analyst)).result()
    payload = result.content["payload"]
    assert result.outcome == "FALLBACK" and result.degraded
    assert payload["degraded"] is True and payload["summary"] == FALLBACK_MESSAGE
    assert payload["findings"] == [] and payload["root_cause"] is None
    assert payload["evidence"] and "db is down" not in json.dumps(result.content)
    assert result.trace["termination_reason"] == "FALLBACK"
    assert result.trace["repair_count"] == 2
    assert result.trace["final_node"] == "fallback"


async def test_semantic_rejection_goes_to_fallback_with_internal_reason_only() -> None:
    leaky = _good_draft().model_copy(update={"summary": "Root cause: db. password=hunter22"})
    result = await _start(
        "Why is the api failing?", run_parts(analyst=ScriptedAnalyst(drafts=[leaky]))
    ).result()
    assert result.outcome == "FALLBACK"
    assert result.self_evaluation["fallback_reason"] == "secret:assignment"
    assert "hunter22" not in json.dumps(result.content)
    assert "secret" not in json.dumps(result.content)


class MeteredAnalyst(ScriptedAnalyst):
    """Charges one model call per plan step, like the LLM analyst does."""

    async def plan(self, request: Any, meter: ModelMeter) -> Plan:
        meter.charge_model_call()
        return await super().plan(request, meter)


async def test_model_budget_exhausted_ends_in_fallback_not_an_exception() -> None:
    parts = run_parts(analyst=MeteredAnalyst(), budgets=GraphBudgets(max_model_calls=1))
    result = await _start("Why is the api failing?", parts).result()
    assert result.outcome == "FALLBACK"
    assert result.trace["termination_reason"] == "BUDGET_EXHAUSTED"
    assert result.self_evaluation["budget_exhausted"] == "model_calls"


async def test_tool_budget_too_small_for_the_plan_ends_in_budget_exhausted() -> None:
    toolbox = FakeToolbox()
    parts = run_parts(toolbox, budgets=GraphBudgets(max_tool_calls=2))
    result = await _start("Why is the api failing?", parts).result()
    assert result.outcome == "FALLBACK"
    assert result.trace["termination_reason"] == "BUDGET_EXHAUSTED"
    assert result.self_evaluation["budget_exhausted"] == "tool_calls"
    assert toolbox.calls == []


async def test_deadline_ends_in_budget_exhausted_fallback_and_cancels_tools() -> None:
    toolbox = FakeToolbox(delay_s=5.0)
    parts = run_parts(toolbox, budgets=GraphBudgets(deadline_s=0.3))
    result = await _start("Why is the api failing?", parts).result()
    assert result.outcome == "FALLBACK" and result.degraded
    assert result.trace["termination_reason"] == "BUDGET_EXHAUSTED"
    assert toolbox.cancelled == len(toolbox.calls) > 0


async def test_a_node_past_its_timeout_fails_the_run_and_cancels_its_tools() -> None:
    toolbox = FakeToolbox(delay_s=5.0)
    runner = DiagnosisRunner(build_graph(node_timeout_s=0.2), recursion_limit=60)
    request = RunRequest(run_id="run-1", session_id="session-1", query="Why is the api failing?")
    observer = RecordingObserver()
    handle = runner.start(request, run_parts(toolbox), observer)
    with pytest.raises(RunFailed) as failed:
        await handle.result()
    assert failed.value.code == "NODE_TIMEOUT"
    assert toolbox.calls and toolbox.cancelled == len(toolbox.calls)
    assert handle.partial_trace()["path"] == ["router", "planner", "executors"]


async def test_three_executors_run_concurrently() -> None:
    plan = Plan(
        calls=[
            PlannedCall(tool="list_alerts"),
            PlannedCall(tool="list_log_streams"),
            PlannedCall(tool="search_runbooks", args={"query": "db"}),
        ]
    )
    analyst = ScriptedAnalyst(plans=[plan, Plan(), Plan()])
    toolbox = FakeToolbox(delay_s=0.3)
    started = time.monotonic()
    result = await _start("Why is the api failing?", run_parts(toolbox, analyst=analyst)).result()
    elapsed = time.monotonic() - started
    assert len(toolbox.calls) == 3 and result.trace["path"].count("executors") == 1
    assert elapsed < 0.6, f"three 300 ms lanes took {elapsed:.2f}s"


async def test_cancel_cancels_in_flight_tool_calls_and_keeps_a_partial_trace() -> None:
    toolbox = FakeToolbox(delay_s=5.0)
    handle = _start("Why is the api failing?", run_parts(toolbox))
    task = asyncio.create_task(handle.result())  # the run is a plain call: its caller's task owns it
    for _ in range(500):
        if toolbox.calls:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert toolbox.calls and toolbox.cancelled == len(toolbox.calls)
    trace = handle.partial_trace()
    assert trace["termination_reason"] == "CANCELLED"
    assert trace["path"] == ["router", "planner", "executors"]
    assert {"from": "executors", "to": "__end__"} not in trace["transitions"]


async def test_mid_run_failure_raises_typed_error_with_partial_trace() -> None:
    def broken(tool: str, args: Any) -> Any:
        if tool == "query_logs":
            raise RuntimeError("bug in a backend adapter")
        return incident_answers(tool, args)

    handle = _start("Why is the api failing?", run_parts(FakeToolbox(answers=broken)))
    with pytest.raises(RunFailed) as failed:
        await handle.result()
    assert failed.value.code == "GRAPH_FAILED"
    trace = handle.partial_trace()
    assert trace["termination_reason"] == "FAILED"
    assert trace["path"] == ["router", "planner", "executors", "planner", "executors"]
    assert "bug in a backend adapter" not in json.dumps(trace)


async def test_follow_up_is_resolved_against_the_previous_turn() -> None:
    history = [{"query": "Why is the api failing?", "summary": "Root cause: db.", "root_cause_service": "db"}]
    result = await _start("why did that start?", run_parts(), history=history).result()
    assert result.route == "complex"
    assert result.content["payload"]["root_cause"]["service"] == "db"


async def test_serialized_traces_hold_no_prompt_text_or_raw_tool_output() -> None:
    from graph.analysts.llm.prompts import PROMPT_LINES

    result = await _start("Why is the api failing?", run_parts()).result()
    serialized = json.dumps(result.trace)
    assert len(serialized) < 65_536
    for raw in (
        "Upstream db timed out",
        "too many connections",
        "db connections exhausted",
        "When db connections are exhausted",
    ):
        assert raw not in serialized
    assert not any(line in serialized for line in PROMPT_LINES)
