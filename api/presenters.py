"""Store records → camelCase JSON for the API (the trace carries its orchestration only on `run`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from persistence.records import RunSummary, RunTrace, SessionInfo


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def run_summary_json(run: RunSummary) -> dict[str, Any]:
    return {
        "runId": run.run_id,
        "sessionId": run.session_id,
        "query": run.query,
        "status": run.status,
        "outcome": run.outcome,
        "agentFlow": run.agent_flow,
        "route": run.route,
        "answerPreview": run.answer_preview,
        "stepCount": run.step_count,
        "toolCallCount": run.tool_call_count,
        "failureCode": run.failure_code,
        "cancelReason": run.cancel_reason,
        "createdAt": _iso(run.created_at),
        "updatedAt": _iso(run.updated_at),
        "finishedAt": _iso(run.finished_at),
    }


def session_json(session: SessionInfo) -> dict[str, Any]:
    return {
        "sessionId": session.session_id,
        "status": session.status,
        "messagePairCount": session.message_pair_count,
        "createdAt": _iso(session.created_at),
        "lastActiveAt": _iso(session.last_active_at),
        "expiresAt": _iso(session.expires_at),
    }


def run_trace_json(trace: RunTrace) -> dict[str, Any]:
    run = run_summary_json(trace.run)
    run["orchestrationTrace"] = trace.orchestration_trace
    return {
        "session": session_json(trace.session),
        "run": run,
        "steps": [
            {
                "seq": s.seq,
                "node": s.node,
                "status": s.status,
                "startedAt": _iso(s.started_at),
                "durationMs": s.duration_ms,
                "summary": s.summary,
            }
            for s in trace.steps
        ],
        "toolInvocations": [
            {
                "seq": t.seq,
                "tool": t.tool,
                "evidenceId": t.evidence_id,
                "status": t.status,
                "argsSummary": t.args_summary,
                "resultSummary": t.result_summary,
                "bytes": t.bytes,
                "durationMs": t.duration_ms,
                "createdAt": _iso(t.created_at),
            }
            for t in trace.tools
        ],
        "selfEvaluation": trace.self_evaluation,
        "answer": trace.answer,
        "feedback": trace.feedback,
    }
