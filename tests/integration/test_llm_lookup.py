"""The lookup route with a model configured: the real ChatOpenAI against the scripted server.

A data question the rules' grammar names is routed and planned without a model call; one it does not
is routed by the model (Route) and translated into lookup calls by the model (Plan). The rows are
the tool results either way, and a failing model step degrades to the rules.
"""

from __future__ import annotations

from typing import Any

import pytest

from graph.analysts.llm import LlmAnalyst, ModelConfig, ModelGate, build_chat_model
from graph.analysts.rules import RuleAnalyst
from graph.build import build_graph
from graph.runner import DiagnosisRunner, RunRequest, RunResult
from tests.support.scripted_llm import HttpError, ScriptedLLM, ToolCall
from tests.unit.graph.factories import FakeToolbox, RecordingObserver, run_parts

pytestmark = pytest.mark.llm

GRAPH = build_graph()
VAGUE = "Could you pull up what the db said about too many connections?"


async def _run(llm: ScriptedLLM, query: str, toolbox: FakeToolbox) -> RunResult:
    config = ModelConfig(
        base_url=llm.base_url, model="scripted-model", api_key="k", timeout_s=5.0, max_retries=0
    )
    analyst = LlmAnalyst(build_chat_model(config), ModelGate(4, acquire_timeout_s=1.0), RuleAnalyst())
    parts = run_parts(toolbox, analyst=analyst)
    request = RunRequest(run_id="run-lookup", session_id="s", query=query)
    return await DiagnosisRunner(GRAPH).start(request, parts, RecordingObserver()).result()


def _forced(body: dict[str, Any]) -> str:
    return str(body["tool_choice"]["function"]["name"])


async def test_a_question_the_grammar_names_costs_no_model_call(llm: ScriptedLLM) -> None:
    toolbox = FakeToolbox()
    result = await _run(llm, "Show the last 5 error lines from db", toolbox)
    assert result.outcome == "SUCCESS" and result.route == "lookup" and result.model_calls == 0
    assert llm.requests == [] and toolbox.calls == [
        ("query_logs", {"window_minutes": 1440, "limit": 5, "service": "db", "level": "error"})
    ]
    [table] = result.content["payload"]["tables"]
    assert result.content["content_type"] == "lookup_result" and len(table["rows"]) == 5
    assert {row[1] for row in table["rows"]} == {"db"}


async def test_the_model_routes_and_plans_a_question_the_grammar_does_not_name(llm: ScriptedLLM) -> None:
    route = {"route": "lookup", "intent": "lookup", "resolved_query": VAGUE, "services": ["db"]}
    plan = {
        "calls": [
            {"tool": "query_logs", "args": {"service": "db", "contains": "too many connections"}},
            {"tool": "search_runbooks", "args": {"query": "connections"}},  # not a lookup tool: dropped
        ]
    }
    llm.script("Route", ToolCall(route))
    llm.script("Plan", ToolCall(plan))
    toolbox = FakeToolbox()
    result = await _run(llm, VAGUE, toolbox)
    assert [_forced(body) for body in llm.requests] == ["Route", "Plan"] and llm.unscripted == 0
    assert result.outcome == "SUCCESS" and result.route == "lookup" and result.model_calls == 2
    assert [tool for tool, _ in toolbox.calls] == ["query_logs"]
    plan_input = llm.requests_for("Plan")[0]["messages"]
    assert "data question" in plan_input[0]["content"] and VAGUE in plan_input[-1]["content"]
    [table] = result.content["payload"]["tables"]
    assert table["rows"] and {row[1] for row in table["rows"]} == {"db"}
    assert "contains=too many connections" in table["query"]
    assert result.self_evaluation["evidence_guard"]["passed"] is True


async def test_a_failing_model_plan_degrades_to_the_rules_and_says_no_query_was_formed(
    llm: ScriptedLLM,
) -> None:
    llm.script("Route", ToolCall({"route": "lookup", "intent": "lookup", "resolved_query": VAGUE}))
    llm.script("Plan", HttpError(503))
    toolbox = FakeToolbox()
    result = await _run(llm, VAGUE, toolbox)
    assert result.outcome == "SUCCESS" and toolbox.calls == []
    assert result.trace["degradations"] == [{"step": "plan", "degraded_to": "rules", "reason": "http_error"}]
    assert result.content["payload"]["summary"].startswith("No query could be formed")
    assert result.content["payload"]["tables"] == []
