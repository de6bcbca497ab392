"""`POST /api/feedback`: bind feedback to one run; useful feedback grows the case library."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import PrincipalDep, ServicesDep
from api.errors import NotFound, envelope
from api.schemas import FeedbackEnvelope, FeedbackRequest
from persistence.records import RecordNotFound

router = APIRouter(tags=["feedback"])


@router.post("/api/feedback", response_model=None, responses={200: {"model": FeedbackEnvelope}})
async def feedback(body: FeedbackRequest, services: ServicesDep, principal: PrincipalDep) -> dict[str, Any]:
    """Feedback on `runId` of `sessionId`; another session's run changes nothing."""
    session = await services.runs.get_session(session_id=body.session_id)
    if session is None or (principal is not None and session.principal != principal):
        raise NotFound("Run not found in this session.")
    try:
        stored = await services.runs.bind_feedback(
            session_id=body.session_id, run_id=body.run_id, useful=body.useful, comment=body.comment
        )
    except RecordNotFound:
        raise NotFound("Run not found in this session.") from None
    case_id = None
    if body.useful:
        case = await services.runs.create_or_reuse_case(run_id=body.run_id)
        case_id = None if case is None else case.case_id
    return envelope(
        {"runId": body.run_id, "sessionId": body.session_id, "feedback": stored, "caseId": case_id}
    )
