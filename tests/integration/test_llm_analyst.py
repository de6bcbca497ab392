"""The LLM analyst through the real ChatOpenAI against the scripted OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from graph.analysts.base import AnalystUnavailable
from graph.analysts.llm import LlmAnalyst, ModelConfig, ModelGate, build_chat_model
from graph.analysts.rules import RuleAnalyst
from graph.build import build_graph
from graph.context import GraphBudgets
from graph.runner import DiagnosisRunner, GraphRun, RunRequest
from tests.support.scripted_llm import (
    Garbage,
    HttpError,
    Malformed,
    ScriptedLLM,
    Sleep,
    Text,
    ToolCall,
)
from tests.unit.graph.factories import FakeToolbox, RecordingObserver, run_parts

pytestmark = pytest.mark.llm

GRAPH = build_graph()
ROUTE = {
    "route": "complex",
    "intent": "diagnosis",
    "resolved_query": "Is the api in trouble because of the db?",
    "services": ["api", "db"],
}
# The targeted round, planned by the model once the rules' discovery round has run.
PLAN = {
    "calls": [
        {"tool": "list_alerts", "args": {}},
        {"tool": "query_logs", "args": {}},
        {"tool": "search_runbooks", "args": {"query": "db connections"}},
    ]
}
GOOD = {
    "summary": "Root cause: db ran out of connections; api is affected downstream.",
    "healthy": False,
    "root_cause": {
        "service": "db",
        "category": "connection_pool_exhaustion",
        "statement": "db exhausted its connections.",
        "confidence": 0.8,
    },
    "findings": [
        {
            "statement": "ConnectionsExhausted fired on db since 2026-11-30T09:10:00Z.",
            "evidence_ids": ["alerts-1"],
        },
        # logs-1 is the discovery round's stream listing; logs-2 the query_logs call the model planned.
        {"statement": 'api logged "Upstream db timed out after 5000ms".', "evidence_ids": ["logs-2"]},
    ],
    "recommendations": [
        {"action": "Find the clients holding db connections.", "runbook": "db-connections.md"}
    ],
    "open_questions": [],
    "ruled_out": [],
}
BAD = {**GOOD, "findings": [{"statement": "db failed.", "evidence_ids": ["alerts-99"]}]}


def _analyst(llm: ScriptedLLM, *, timeout_s: float = 5.0, gate: ModelGate | None = None) -> LlmAnalyst:
    config = ModelConfig(
        base_url=llm.base_url, model="scripted-model", api_key="test-key", timeout_s=timeout_s, max_retries=0
    )
    return LlmAnalyst(build_chat_model(config), gate or ModelGate(4, acquire_timeout_s=1.0), RuleAnalyst())


def _start(
    llm: ScriptedLLM,
    toolbox: FakeToolbox | None = None,
    query: str = "Why is the api failing?",
    **kwargs: Any,
) -> GraphRun:
    budgets = kwargs.pop("budgets", GraphBudgets())
    parts = run_parts(toolbox or FakeToolbox(), analyst=_analyst(llm, **kwargs), budgets=budgets)
    request = RunRequest(run_id="run-llm", session_id="s", query=query)
    return DiagnosisRunner(GRAPH).start(request, parts, RecordingObserver())


async def _eventually(condition: Callable[[], bool], within_s: float = 5.0) -> bool:
    """Poll a condition the server reaches asynchronously (it notices disconnects by polling)."""
    for _ in range(int(within_s / 0.02)):
        if condition():
            return True
        await asyncio.sleep(0.02)
    return condition()


def _script_until_draft(llm: ScriptedLLM) -> None:
    # A plain symptom question is routed by the rules; discovery and follow-ups are the rules' too.
    llm.script("Plan", ToolCall(PLAN))


async def test_good_answer_is_released(llm: ScriptedLLM) -> None:
    _script_until_draft(llm)
    llm.script("Draft", ToolCall(GOOD))
    result = await _start(llm).result()
    assert result.outcome == "SUCCESS" and not result.degraded
    assert result.content["payload"]["root_cause"]["service"] == "db"
    assert result.model_calls == 2 and result.tokens == 2 * 150
    assert result.trace["model_calls"] == 2 and result.trace["degradations"] == []
    assert [_forced(body) for body in llm.requests] == ["Plan", "Draft"]
    for body in llm.requests:
        assert "response_format" not in body
        assert body["tool_choice"]["type"] == "function"
    draft_request = llm.requests_for("Draft")[0]
    prompt_input = draft_request["messages"][-1]["content"]
    assert '"digest"' in prompt_input and '"lines"' not in prompt_input  # digest, not raw output
    plan_input = llm.requests_for("Plan")[0]["messages"][-1]["content"]
    assert '"discovered"' in plan_input and "db_connections_in_use" in plan_input  # after discovery
    assert llm.unscripted == 0


async def test_a_question_the_rules_cannot_route_surely_is_routed_by_the_model(llm: ScriptedLLM) -> None:
    llm.script("Route", ToolCall(ROUTE))
    _script_until_draft(llm)
    llm.script("Draft", ToolCall(GOOD))
    result = await _start(llm, query="Is the api in trouble because of the db?").result()
    assert result.outcome == "SUCCESS" and not result.degraded
    assert [_forced(body) for body in llm.requests] == ["Route", "Plan", "Draft"]
    assert "Is the api in trouble" in llm.requests_for("Route")[0]["messages"][-1]["content"]
    assert llm.unscripted == 0


def _forced(body: dict[str, Any]) -> str:
    return str(body["tool_choice"]["function"]["name"])


async def test_unknown_evidence_id_is_caught_and_fixed_by_one_repair(llm: ScriptedLLM) -> None:
    _script_until_draft(llm)
    llm.script("Draft", ToolCall(BAD))
    llm.script("Repair", ToolCall({"draft": GOOD, "calls": []}))
    result = await _start(llm).result()
    assert result.outcome == "SUCCESS"
    assert result.trace["repair_count"] == 1
    repair_input = llm.requests_for("Repair")[0]["messages"][-1]["content"]
    assert "alerts-99" in repair_input


async def test_repeated_bad_drafts_end_in_fallback(llm: ScriptedLLM) -> None:
    _script_until_draft(llm)
    llm.script("Draft", ToolCall(BAD))
    llm.script("Repair", ToolCall({"draft": BAD}), ToolCall({"draft": BAD}))
    result = await _start(llm).result()
    assert result.outcome == "FALLBACK" and result.degraded
    assert result.content["payload"]["degraded"] is True
    assert "db failed" not in json.dumps(result.content)
    assert result.trace["termination_reason"] == "FALLBACK"


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        (Malformed(), "malformed_output"),
        (HttpError(500), "http_error"),
        (HttpError(429, "rate limited"), "http_error"),
        (Garbage(), "malformed_output"),
        (Text("The database is down."), "malformed_output"),  # prose instead of the forced call
        (ToolCall(GOOD, name="Repair"), "malformed_output"),  # another function than the forced one
        (ToolCall({"summary": 42}), "malformed_output"),  # the forced call, arguments off-schema
        (Sleep(5.0), "timeout"),
    ],
)
async def test_model_failure_degrades_the_step_to_rules(llm: ScriptedLLM, step: Any, reason: str) -> None:
    _script_until_draft(llm)
    llm.script("Draft", step)
    result = await _start(llm, timeout_s=0.5).result()
    assert result.outcome == "SUCCESS" and result.degraded
    assert result.trace["degradations"] == [{"step": "diagnose", "degraded_to": "rules", "reason": reason}]
    assert result.content["payload"]["root_cause"]["service"] == "db"
    if reason == "timeout":
        assert await _eventually(lambda: llm.disconnects == 1)


async def test_an_answer_that_does_not_parse_still_charges_its_tokens(llm: ScriptedLLM) -> None:
    _script_until_draft(llm)
    llm.script("Draft", ToolCall({"summary": 42}))  # a function call with off-schema arguments
    result = await _start(llm).result()
    assert result.degraded and result.model_calls == 2
    assert result.tokens == 2 * 150  # the model spent them whether or not the answer was usable


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("Rotate the key sk-proj-abcdefghijklmnopqrst1234 now.", "secret:openai_key"),
        ("Run DROP TABLE connections; to reset the pool.", "destructive:unguarded_command"),
    ],
)
async def test_semantic_guard_stops_leaks_and_unguarded_commands(
    llm: ScriptedLLM, action: str, reason: str
) -> None:
    _script_until_draft(llm)
    llm.script("Draft", ToolCall({**GOOD, "recommendations": [{"action": action}]}))
    result = await _start(llm).result()
    assert result.outcome == "FALLBACK"
    assert result.self_evaluation["fallback_reason"] == reason
    assert action not in json.dumps(result.content)


async def test_token_budget_exhausted_ends_in_fallback(llm: ScriptedLLM) -> None:
    _script_until_draft(llm)  # the plan's 150 tokens spend the budget before the draft
    result = await _start(llm, budgets=GraphBudgets(max_tokens=100)).result()
    assert result.outcome == "FALLBACK"
    assert result.trace["termination_reason"] == "BUDGET_EXHAUSTED"
    assert result.self_evaluation["budget_exhausted"] == "tokens"


async def test_cancelling_a_run_cancels_the_in_flight_model_call(llm: ScriptedLLM) -> None:
    _script_until_draft(llm)
    llm.script("Draft", Sleep(30.0))
    handle = _start(llm)
    task = asyncio.create_task(handle.result())  # the run is a plain call: its caller's task owns it
    assert await _eventually(lambda: llm.in_flight == 1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _eventually(lambda: llm.disconnects == 1)
    assert handle.partial_trace()["path"][-1] == "diagnose"


async def test_saturated_model_gate_is_a_controlled_failure() -> None:
    gate = ModelGate(1, acquire_timeout_s=0.05)
    async with gate.slot():
        with pytest.raises(AnalystUnavailable) as saturated:
            async with gate.slot():
                pass
    assert saturated.value.reason == "saturated"
