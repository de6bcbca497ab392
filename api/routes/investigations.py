"""`GET /api/investigations?limit=`: the caller's recent runs across its sessions (chat, AIOps, and
those Alertmanager started, when the webhook's principal is the caller's), newest first."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import PrincipalDep, RunStoreDep
from api.schemas import RunSummaryBody, _Envelope

router = APIRouter(tags=["runs"])
MAX_PAGE = 100


class InvestigationBody(RunSummaryBody):
    """A run summary (its query: the question, or the alert group a notification named) and the
    root cause its answer gave."""

    root_cause: str | None


class InvestigationsEnvelope(_Envelope):
    data: list[InvestigationBody]


@router.get("/api/investigations")
async def list_investigations(
    runs: RunStoreDep, principal: PrincipalDep, limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50
) -> InvestigationsEnvelope:
    found = await runs.recent_runs(principal=principal, limit=limit)
    return InvestigationsEnvelope(
        data=[
            InvestigationBody(**dict(RunSummaryBody.model_validate(item.run)), root_cause=item.root_cause)
            for item in found
        ]
    )
