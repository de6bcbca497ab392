"""What enters the graph from the request and what leaves it as the answer is masked: the analysts
(a model) never see a secret pasted into a question, and one spelled in a draft is not released."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from graph.analysts.base import (
    Draft,
    Finding,
    ModelMeter,
    Recommendation,
    RootCause,
    Route,
    RouteRequest,
)
from graph.build import build_graph
from graph.runner import DiagnosisRunner, RunRequest
from tests.unit.graph.factories import RecordingObserver, ScriptedAnalyst, run_parts

GRAPH = build_graph()
SCRAM = "SCRAM-SHA-256$4096:c2FsdFpxOQ==$c3RvcmVkWnE5:c2VydmVyWnE5"


@dataclass
class RecordingAnalyst(ScriptedAnalyst):
    seen: list[RouteRequest] = field(default_factory=list)

    async def route(self, request: RouteRequest, meter: ModelMeter) -> Route:
        self.seen.append(request)
        return await super().route(request, meter)


async def test_the_analyst_sees_the_question_and_history_masked() -> None:
    analyst = RecordingAnalyst()
    history = [
        {"query": "login with PGPASSWORD=Zq9-old-pw fails", "summary": "db.", "root_cause_service": "db"}
    ]
    request = RunRequest(
        run_id="run-1",
        session_id="s-1",
        query='Why is the api failing? config has {"password": "Zq9 new pw"}',
        history=history,
    )
    await DiagnosisRunner(GRAPH).start(request, run_parts(analyst=analyst), RecordingObserver()).result()
    (seen,) = analyst.seen
    assert "Zq9" not in seen.query and '"password": "[REDACTED]"' in seen.query
    assert "Zq9" not in json.dumps([turn.query for turn in seen.history])


async def test_a_secret_spelled_in_a_draft_is_masked_in_the_released_answer() -> None:
    draft = Draft(
        summary="Root cause: db.",
        root_cause=RootCause(
            service="db", category="connection_pool_exhaustion", statement="db ran out.", confidence=0.7
        ),
        findings=[Finding(statement="ConnectionsExhausted fired on db.", evidence_ids=["alerts-1"])],
        # Neither guard knows SCRAM verifiers: only the masking of the released answer stops it.
        recommendations=[Recommendation(action=f"Rotate the role whose hash is {SCRAM}.")],
    )
    analyst = ScriptedAnalyst(drafts=[draft])
    request = RunRequest(run_id="run-1", session_id="s-1", query="Why is the api failing?")
    result = (
        await DiagnosisRunner(GRAPH).start(request, run_parts(analyst=analyst), RecordingObserver()).result()
    )
    released = json.dumps(result.content)
    assert result.outcome == "SUCCESS" and "SCRAM-SHA-256$[REDACTED]" in released
    assert "c3RvcmVkWnE5" not in released
