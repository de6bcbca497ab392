"""`POST /api/feedback`: bind feedback to one run; useful feedback grows the case library."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import OwnedFeedback, RunStoreDep
from api.errors import NotFound
from api.schemas import FeedbackBody, FeedbackEnvelope
from persistence.records import RecordNotFound

router = APIRouter(tags=["feedback"])


@router.post("/api/feedback")
async def feedback(body: OwnedFeedback, runs: RunStoreDep) -> FeedbackEnvelope:
    """Feedback on `runId` of `sessionId`; another session's run changes nothing."""
    try:
        stored = await runs.bind_feedback(
            session_id=body.session_id, run_id=body.run_id, useful=body.useful, comment=body.comment
        )
    except RecordNotFound:
        raise NotFound("Run not found in this session.") from None
    case = await runs.create_or_reuse_case(run_id=body.run_id) if body.useful else None
    data = FeedbackBody(
        run_id=body.run_id,
        session_id=body.session_id,
        feedback=stored,
        case_id=None if case is None else case.case_id,
    )
    return FeedbackEnvelope(data=data)
