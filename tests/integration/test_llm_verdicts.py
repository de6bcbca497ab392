"""With a model configured, the verdict and scope rules still hold (scripted OpenAI-compatible model).

The model is told the checks (unmuted firing alerts, missing key sources, the question's scope); a draft
that breaks them is replaced by the rule-based draft of the same evidence before the guards run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from graph.analysts.llm import LlmAnalyst, ModelConfig, ModelGate, build_chat_model
from graph.analysts.rules import RuleAnalyst
from graph.build import build_graph
from graph.runner import DiagnosisRunner, RunRequest, RunResult
from tests.support.scripted_llm import ScriptedLLM, ToolCall
from tests.unit.graph.factories import FakeToolbox, RecordingObserver, incident_answers, run_parts

pytestmark = pytest.mark.llm

GRAPH = build_graph()
METRIC_TOOLS = {"list_metrics", "list_targets", "query_metric", "query_promql", "read_metric"}
PLAN = {"calls": [{"tool": "query_logs", "args": {}}]}
HEALTHY = {
    "summary": "No incident found: nothing is wrong.",
    "verdict": "healthy",
    "healthy": True,
    "findings": [{"statement": "No alert is firing.", "evidence_ids": ["alerts-1"]}],
}


def _quiet(tool: str, args: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """No alert fires and the logs hold nothing but routine lines."""
    if tool == "list_alerts":
        return {"alerts": [], "total": 0}, "0 alerts"
    if tool == "query_logs":
        line = {"ts": "2026-11-30T09:50:00Z", "labels": {"service": "api", "level": "INFO"}, "message": "ok"}
        return {"lines": [line]}, "1 log line"
    return incident_answers(tool, args)


async def _run(llm: ScriptedLLM, toolbox: FakeToolbox, query: str) -> RunResult:
    config = ModelConfig(
        base_url=llm.base_url, model="scripted-model", api_key="k", timeout_s=5.0, max_retries=0
    )
    analyst = LlmAnalyst(build_chat_model(config), ModelGate(4, acquire_timeout_s=1.0), RuleAnalyst())
    request = RunRequest(run_id="run-verdict", session_id="s", query=query)
    return (
        await DiagnosisRunner(GRAPH)
        .start(request, run_parts(toolbox, analyst=analyst), RecordingObserver())
        .result()
    )


async def test_a_healthy_draft_while_metrics_could_not_be_read_is_released_inconclusive(
    llm: ScriptedLLM,
) -> None:
    llm.script("Plan", ToolCall(PLAN))
    llm.script("Draft", ToolCall(HEALTHY))
    toolbox = FakeToolbox(answers=_quiet, failing=set(METRIC_TOOLS))
    result = await _run(llm, toolbox, "Is anything wrong with the api right now?")
    payload = result.content["payload"]
    assert result.outcome == "SUCCESS" and not result.degraded
    assert payload["verdict"] == "inconclusive" and payload["healthy"] is False
    assert payload["root_cause"] is None
    assert "metrics (could not be read)" in payload["summary"]
    # The model saw the checks it had to respect.
    draft_input = llm.requests_for("Draft")[0]["messages"][-1]["content"]
    assert '"missing":["metrics (could not be read)"]' in draft_input
    assert llm.unscripted == 0


async def test_a_healthy_draft_while_an_alert_fires_is_not_released_as_healthy(llm: ScriptedLLM) -> None:
    llm.script("Plan", ToolCall(PLAN))
    llm.script("Draft", ToolCall(HEALTHY))
    result = await _run(llm, FakeToolbox(), "Is anything wrong with the api right now?")
    payload = result.content["payload"]
    assert result.outcome == "SUCCESS"
    assert payload["verdict"] == "incident" and payload["healthy"] is False
    assert payload["root_cause"]["service"] == "db"
    draft_input = llm.requests_for("Draft")[0]["messages"][-1]["content"]
    assert "ConnectionsExhausted on db" in draft_input


async def test_a_cause_on_another_system_than_the_question_names_gives_way_to_the_scoped_answer(
    llm: ScriptedLLM,
) -> None:
    batch_blamed = {
        "summary": "Root cause: batch.",
        "verdict": "incident",
        "root_cause": {
            "service": "batch",
            "category": "cpu_saturation",
            "statement": "batch CPU.",
            "confidence": 0.7,
        },
        "findings": [{"statement": "HighCPU fires on batch.", "evidence_ids": ["alerts-1"]}],
    }
    llm.script("Plan", ToolCall(PLAN))
    llm.script("Draft", ToolCall(batch_blamed))
    result = await _run(llm, FakeToolbox(), "Why is the api failing?")
    payload = result.content["payload"]
    assert payload["root_cause"]["service"] == "db"  # api's errors name db; batch is not the api's cause
    draft_input = llm.requests_for("Draft")[0]["messages"][-1]["content"]
    assert '"scope":"api"' in draft_input


async def test_a_cause_for_a_system_no_evidence_names_gives_way_to_an_inconclusive_answer(
    llm: ScriptedLLM,
) -> None:
    """Asked about `db-reconciler` when only db and api speak: the model's cause is not released."""
    invented = {
        "summary": "Root cause: db.",
        "verdict": "incident",
        "root_cause": {
            "service": "db",
            "category": "connection_pool_exhaustion",
            "statement": "db.",
            "confidence": 0.6,
        },
        "findings": [{"statement": "ConnectionsExhausted fires on db.", "evidence_ids": ["alerts-1"]}],
    }
    llm.script("Plan", ToolCall(PLAN))
    llm.script("Draft", ToolCall(invented))
    result = await _run(llm, FakeToolbox(), "Is db-reconciler healthy? reconciliations look late")
    payload = result.content["payload"]
    assert payload["verdict"] == "inconclusive" and payload["root_cause"] is None
    assert "no alert, metric series or log line names db-reconciler" in payload["summary"]
