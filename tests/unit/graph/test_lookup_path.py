"""Paths of the lookup route through the compiled graph (rules analyst, canned tool answers)."""

from __future__ import annotations

from graph.build import build_graph
from graph.context import GraphBudgets
from graph.runner import DiagnosisRunner, RunRequest, RunResult
from tests.unit.graph.factories import FakeToolbox, RecordingObserver, run_parts

GRAPH = build_graph()


async def _run(query: str, toolbox: FakeToolbox, observer: RecordingObserver, **budgets: int) -> RunResult:
    parts = run_parts(toolbox, budgets=GraphBudgets(**budgets))
    request = RunRequest(run_id="run-path", session_id="s", query=query)
    return await DiagnosisRunner(GRAPH).start(request, parts, observer).result()


async def test_a_lookup_runs_one_round_then_lookup_instead_of_diagnose() -> None:
    toolbox, observer = FakeToolbox(), RecordingObserver()
    result = await _run("Which alerts are firing?", toolbox, observer)
    assert result.outcome == "SUCCESS" and result.route == "lookup"
    assert result.trace["path"] == [
        "router",
        "planner",
        "executors",
        "planner",
        "lookup",
        "evidence_guard",
        "semantic_guard",
        "composer",
    ]
    assert toolbox.calls == [("list_alerts", {})]
    assert observer.statuses == [
        "ROUTING",
        "PLANNING",
        "COLLECTING_EVIDENCE",
        "PLANNING",
        "COMPOSING",
        "VERIFYING",
        "COMPOSING",
    ]
    [table] = result.content["payload"]["tables"]
    assert [row[0] for row in table["rows"]] == ["ConnectionsExhausted", "HighCPU"]


async def test_a_lookup_plans_within_the_tool_budget() -> None:
    toolbox, observer = FakeToolbox(), RecordingObserver()
    result = await _run("Post the last 3 lines containing ERROR from db", toolbox, observer, max_tool_calls=1)
    assert result.outcome == "SUCCESS"
    # The level query comes first; the text query does not fit the budget of one call.
    assert toolbox.calls == [
        ("query_logs", {"window_minutes": 1440, "limit": 3, "service": "db", "level": "error"})
    ]
    [table] = result.content["payload"]["tables"]
    assert len(table["rows"]) == 3 and {row[1] for row in table["rows"]} == {"db"}
