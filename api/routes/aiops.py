"""`POST /api/ai_ops`: scan the active alerts and stream the AIOps report in legacy `message` frames."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from sse_starlette import EventSourceResponse

from api.deps import AiOpsFlowDep, ChatLimitsDep, PrincipalDep, StreamGateDep
from api.run_stream import admit_and_open, run_frames, streaming_response
from api.schemas import AiOpsRequest
from api.shutdown import StreamShutdown
from api.sse import AiOpsProtocol
from api.stream_response import RunStreamResponse

log = logging.getLogger("superbiz.aiops")
router = APIRouter(tags=["aiops"])


async def _body(request: Request) -> AiOpsRequest:
    raw = await request.body()
    if not raw.strip():
        return AiOpsRequest()
    try:
        # pydantic's own parser: invalid UTF-8 and absurdly deep nesting are validation errors here,
        # where json.loads raised UnicodeDecodeError / RecursionError (answered 500).
        return AiOpsRequest.model_validate_json(raw)
    except ValidationError as error:
        # The same 422 body as the routes FastAPI validates (fields named, codes shared).
        raise RequestValidationError(error.errors(include_input=False, include_url=False)) from None


@router.post(
    "/api/ai_ops",
    response_class=EventSourceResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
    openapi_extra={
        "requestBody": {
            "required": False,
            "content": {"application/json": {"schema": AiOpsRequest.model_json_schema()}},
        }
    },
)
async def ai_ops(
    request: Request, flow: AiOpsFlowDep, gate: StreamGateDep, limits: ChatLimitsDep, principal: PrincipalDep
) -> RunStreamResponse:
    """Body optional: `{sessionId?, services?, instruction?}`."""
    body = await _body(request)
    opened, permit = await admit_and_open(
        gate,
        lambda: flow.open(
            session_id=body.session_id,
            instruction=body.instruction,
            services=body.services,
            principal=principal,
        ),
    )
    shutdown = StreamShutdown()
    frames = run_frames(
        opened,
        flow.start,
        AiOpsProtocol(),
        cancel_grace_s=limits.cancel_grace_s,
        ping_s=limits.sse_ping_s,
        shutdown=shutdown,
    )
    return streaming_response(gate, permit, opened, frames, shutdown)
