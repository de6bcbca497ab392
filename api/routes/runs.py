"""Run history of a session, and the exact trace of one run."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from api.deps import PrincipalDep, ServicesDep
from api.errors import NotFound, envelope
from api.presenters import run_summary_json, run_trace_json
from api.schemas import RUN_ID_PATTERN, SESSION_ID_PATTERN, NoControlCharacters, RunsEnvelope, TraceEnvelope
from persistence.records import RecordNotFound

router = APIRouter(tags=["runs"])

SessionPath = Annotated[str, Path(alias="sessionId", pattern=SESSION_ID_PATTERN), NoControlCharacters]
RunQuery = Annotated[str, Query(alias="runId", pattern=RUN_ID_PATTERN), NoControlCharacters]


async def _owned_session(services: ServicesDep, session_id: str, principal: str | None) -> None:
    session = await services.runs.get_session(session_id=session_id)
    # Another principal's session is reported exactly like a missing one.
    if session is None or (principal is not None and session.principal != principal):
        raise NotFound("Session not found.")


@router.get(
    "/api/chat/session/{sessionId}/runs", response_model=None, responses={200: {"model": RunsEnvelope}}
)
async def list_runs(
    session_id: SessionPath, services: ServicesDep, principal: PrincipalDep
) -> dict[str, Any]:
    """Run summaries of one session, newest first; no step or tool rows."""
    await _owned_session(services, session_id, principal)
    try:
        runs = await services.runs.list_runs(session_id=session_id)
    except RecordNotFound:
        raise NotFound("Session not found.") from None
    return envelope([run_summary_json(run) for run in runs])


@router.get(
    "/api/diagnosis/{sessionId}/trace", response_model=None, responses={200: {"model": TraceEnvelope}}
)
async def run_trace(
    session_id: SessionPath,
    run_id: RunQuery,
    services: ServicesDep,
    principal: PrincipalDep,
) -> dict[str, Any]:
    """The exact run `runId` of this session: never inferred, never another session's."""
    await _owned_session(services, session_id, principal)
    try:
        trace = await services.runs.load_trace(session_id=session_id, run_id=run_id)
    except RecordNotFound:
        raise NotFound("Run not found in this session.") from None
    return envelope(run_trace_json(trace))
