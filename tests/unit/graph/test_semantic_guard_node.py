"""semantic_guard reads the lines released text must never echo from the run context."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import Draft, Finding, RootCause
from graph.analysts.llm.prompts import PROMPT_LINES
from graph.build import build_graph
from graph.runner import DiagnosisRunner, RunParts, RunRequest, RunResult
from tests.unit.graph.factories import RecordingObserver, ScriptedAnalyst, run_parts

GRAPH = build_graph()
SECRET_LINE = "The incident playbook for this tenant is confidential and never quoted back."


def _echoing(line: str) -> Draft:
    return Draft(
        summary=f"Root cause: db. {line}",
        root_cause=RootCause(
            service="db", category="connection_pool_exhaustion", statement="db ran out.", confidence=0.7
        ),
        findings=[Finding(statement="ConnectionsExhausted fired on db.", evidence_ids=["alerts-1"])],
    )


async def _run(parts: RunParts) -> RunResult:
    request = RunRequest(run_id="run-1", session_id="session-1", query="Why is the api failing?")
    return await DiagnosisRunner(GRAPH).start(request, parts, RecordingObserver()).result()


async def test_a_draft_echoing_a_forbidden_line_of_the_context_falls_back() -> None:
    parts = replace(
        run_parts(analyst=ScriptedAnalyst(drafts=[_echoing(SECRET_LINE)])), forbidden_lines=(SECRET_LINE,)
    )
    result = await _run(parts)
    assert result.outcome == "FALLBACK"
    assert result.self_evaluation["fallback_reason"] == "prompt:verbatim"
    assert "confidential" not in str(result.content)


async def test_the_guard_checks_the_lines_the_context_carries_not_a_fixed_list() -> None:
    parts = replace(run_parts(analyst=ScriptedAnalyst(drafts=[_echoing(SECRET_LINE)])), forbidden_lines=())
    result = await _run(parts)
    assert result.outcome == "SUCCESS"


async def test_a_draft_echoing_the_model_instructions_falls_back() -> None:
    line = next(line for line in PROMPT_LINES if len(line) > 60)
    result = await _run(run_parts(analyst=ScriptedAnalyst(drafts=[_echoing(line)])))
    assert result.self_evaluation["fallback_reason"] == "prompt:verbatim"
