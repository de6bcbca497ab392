"""Dependency aliases that hand routes what the composition root built; tests override them.

Each route depends on the parts it uses (`RunStoreDep`, `ChatFlowDep`, ...), not on all of `Services`.
`OwnedSession`, `OwnedRun` and `OwnedFeedback` apply the session-ownership rule, written once in `_owned`.
They are `async def` although most never await: FastAPI runs a plain `def` dependency in a worker
thread, which under load meant up to 40 extra threads and a thread hop per request.
"""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple, Protocol

from fastapi import Depends, Path, Query, Request

from api.aiops_flow import AiOpsFlow
from api.auth import TokenTable
from api.chat_flow import ChatFlow
from api.composition import Services
from api.errors import NotFound, Unauthorized
from api.metrics import ServiceMetrics
from api.run_stream import StreamGate
from api.schemas import RUN_ID_PATTERN, SESSION_ID_PATTERN, FeedbackRequest, NoControlCharacters
from api.settings import ChatLimits, Settings
from persistence.records import SessionInfo
from persistence.runs import RunStore


async def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_settings(services: ServicesDep) -> Settings:
    return services.settings


async def get_run_store(services: ServicesDep) -> RunStore:
    return services.runs


async def get_tokens(services: ServicesDep) -> TokenTable:
    return services.tokens


async def get_metrics(services: ServicesDep) -> ServiceMetrics:
    return services.metrics


class Readiness(Protocol):
    """What `/readyz` asks (satisfied by `Services`): each check reports, never raises."""

    async def database_ready(self) -> tuple[bool, str]: ...
    async def context_store_ready(self) -> tuple[bool, str]: ...
    async def sql_roles_ready(self) -> tuple[bool, dict[str, dict[str, str]]]: ...
    async def evidence_ready(self) -> dict[str, dict[str, Any]]: ...


async def get_readiness(services: ServicesDep) -> Readiness:
    return services


async def get_chat_flow(services: ServicesDep) -> ChatFlow:
    return services.chat


async def get_aiops_flow(services: ServicesDep) -> AiOpsFlow:
    return services.aiops


async def get_chat_limits(services: ServicesDep) -> ChatLimits:
    return services.settings.chat


async def get_stream_gate(services: ServicesDep) -> StreamGate:
    limits = services.settings.chat
    return StreamGate(
        admission=services.admission,
        lifecycle=services.chat.lifecycle,
        metrics=services.metrics,
        send_timeout_s=limits.sse_send_timeout_s,
        streams=services.streams,
    )


SettingsDep = Annotated[Settings, Depends(get_settings)]
ChatLimitsDep = Annotated[ChatLimits, Depends(get_chat_limits)]
ChatFlowDep = Annotated[ChatFlow, Depends(get_chat_flow)]
AiOpsFlowDep = Annotated[AiOpsFlow, Depends(get_aiops_flow)]
StreamGateDep = Annotated[StreamGate, Depends(get_stream_gate)]
RunStoreDep = Annotated[RunStore, Depends(get_run_store)]
TokensDep = Annotated[TokenTable, Depends(get_tokens)]
MetricsDep = Annotated[ServiceMetrics, Depends(get_metrics)]
ReadinessDep = Annotated[Readiness, Depends(get_readiness)]


async def get_principal(request: Request, tokens: TokensDep) -> str | None:
    """The caller's principal; None when authentication is not configured."""
    if not tokens.enabled:
        return None
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    principal = tokens.principal_for(token.strip()) if scheme.lower() == "bearer" else None
    if principal is None:
        raise Unauthorized()
    return principal


PrincipalDep = Annotated[str | None, Depends(get_principal)]


async def _owned(runs: RunStore, session_id: str, principal: str | None, missing: str) -> SessionInfo:
    """The session when the caller may read it. Another principal's session is reported exactly
    like a missing one; without authentication every session is readable."""
    session = await runs.get_session(session_id=session_id)
    if session is None or (principal is not None and session.principal != principal):
        raise NotFound(missing)
    return session


SessionPath = Annotated[str, Path(alias="sessionId", pattern=SESSION_ID_PATTERN), NoControlCharacters]
RunQuery = Annotated[str, Query(alias="runId", pattern=RUN_ID_PATTERN), NoControlCharacters]


class OwnedRunRef(NamedTuple):
    session: SessionInfo
    run_id: str  # not looked up yet: the route reports a run missing from the session


async def owned_session(session_id: SessionPath, runs: RunStoreDep, principal: PrincipalDep) -> SessionInfo:
    return await _owned(runs, session_id, principal, "Session not found.")


async def owned_run(
    session_id: SessionPath, run_id: RunQuery, runs: RunStoreDep, principal: PrincipalDep
) -> OwnedRunRef:
    """Both ids validated before the session is looked up (an invalid runId is 422, never 404)."""
    return OwnedRunRef(await _owned(runs, session_id, principal, "Session not found."), run_id)


async def owned_feedback(
    body: FeedbackRequest, runs: RunStoreDep, principal: PrincipalDep
) -> FeedbackRequest:
    """The feedback body once its session is the caller's (the session id is in the body)."""
    await _owned(runs, body.session_id, principal, "Run not found in this session.")
    return body


OwnedSession = Annotated[SessionInfo, Depends(owned_session)]
OwnedRun = Annotated[OwnedRunRef, Depends(owned_run)]
OwnedFeedback = Annotated[FeedbackRequest, Depends(owned_feedback)]
