"""`POST /api/ai_ops`: scan the active alerts and stream the AIOps report in legacy `message` frames."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from sse_starlette import EventSourceResponse, ServerSentEvent

from api.aiops_use_case import aiops_frames
from api.chat_stream import admit_and_open, streaming_response
from api.deps import PrincipalDep, ServicesDep
from api.keep_alive import keep_alive
from api.routes.chat import run_headers
from api.schemas import AiOpsRequest
from api.shutdown import StreamShutdown

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


async def _as_sse(messages: AsyncGenerator[dict[str, Any] | None]) -> AsyncIterator[ServerSentEvent]:
    # aclosing: when the client leaves, the inner stream's cleanup (cancelling the run) runs now,
    # not whenever the garbage collector finalises it.
    async with contextlib.aclosing(messages) as inner:
        async for message in inner:
            if message is None:
                yield keep_alive()
            else:
                yield ServerSentEvent(event="message", data=json.dumps(message, separators=(",", ":")))


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
async def ai_ops(request: Request, services: ServicesDep, principal: PrincipalDep) -> EventSourceResponse:
    """Body optional: `{sessionId?, services?, instruction?}`."""
    body = await _body(request)
    opened, permit = await admit_and_open(
        services,
        lambda: services.aiops.open(
            session_id=body.session_id,
            instruction=body.instruction,
            services=body.services,
            principal=principal,
        ),
    )
    limits = services.settings.chat
    shutdown = StreamShutdown()
    frames = aiops_frames(
        opened,
        services.aiops,
        cancel_grace_s=limits.cancel_grace_s,
        queue_size=limits.max_aiops_groups + 4,
        ping_s=limits.sse_ping_s,
        shutdown=shutdown,
    )
    response = streaming_response(services, permit, _as_sse(frames), shutdown)
    response.headers.update(run_headers(opened))
    return response
