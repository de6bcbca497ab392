"""Store records → the response models of `api/schemas.py` (orchestration only on the trace's `run`)."""

from __future__ import annotations

from api.schemas import (
    RunsEnvelope,
    RunSummaryBody,
    SessionBody,
    StepBody,
    ToolInvocationBody,
    TraceBody,
    TraceEnvelope,
    TraceRunBody,
)
from persistence.records import RunSummary, RunTrace


def runs_body(runs: list[RunSummary]) -> RunsEnvelope:
    return RunsEnvelope(data=[RunSummaryBody.model_validate(run) for run in runs])


def trace_body(trace: RunTrace) -> TraceEnvelope:
    run = RunSummaryBody.model_validate(trace.run)
    return TraceEnvelope(
        data=TraceBody(
            session=SessionBody.model_validate(trace.session),
            run=TraceRunBody(**dict(run), orchestration_trace=trace.orchestration_trace),
            steps=[StepBody.model_validate(step) for step in trace.steps],
            tool_invocations=[ToolInvocationBody.model_validate(tool) for tool in trace.tools],
            self_evaluation=trace.self_evaluation,
            answer=trace.answer,
            feedback=trace.feedback,
        )
    )
