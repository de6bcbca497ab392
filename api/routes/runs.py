"""Run history of a session, and the exact trace of one run."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import OwnedRun, OwnedSession, RunStoreDep
from api.errors import NotFound
from api.presenters import runs_body, trace_body
from api.schemas import RunsEnvelope, TraceEnvelope
from persistence.records import RecordNotFound

router = APIRouter(tags=["runs"])


@router.get("/api/chat/session/{sessionId}/runs")
async def list_runs(session: OwnedSession, runs: RunStoreDep) -> RunsEnvelope:
    """Run summaries of one session, newest first; no step or tool rows."""
    try:
        found = await runs.list_runs(session_id=session.session_id)
    except RecordNotFound:
        raise NotFound("Session not found.") from None
    return runs_body(found)


@router.get("/api/diagnosis/{sessionId}/trace")
async def run_trace(owned: OwnedRun, runs: RunStoreDep) -> TraceEnvelope:
    """The exact run `runId` of this session: never inferred, never another session's."""
    try:
        trace = await runs.load_trace(session_id=owned.session.session_id, run_id=owned.run_id)
    except RecordNotFound:
        raise NotFound("Run not found in this session.") from None
    return trace_body(trace)
