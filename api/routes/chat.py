"""`POST /api/chat`: validate, admit, open the run, stream it. Nothing else happens here."""

from __future__ import annotations

import logging

from fastapi import APIRouter
from sse_starlette import EventSourceResponse

from api.deps import ChatFlowDep, ChatLimitsDep, PrincipalDep, StreamGateDep
from api.errors import QueryTooLong
from api.run_stream import admit_and_open, run_frames, streaming_response
from api.schemas import ChatRequest
from api.shutdown import StreamShutdown
from api.sse import ChatProtocol
from api.stream_response import RunStreamResponse

log = logging.getLogger("superbiz.chat")
router = APIRouter(tags=["chat"])


@router.post(
    "/api/chat",
    response_class=EventSourceResponse,
    responses={200: {"content": {"text/event-stream": {}}}, 503: {"description": "busy"}},
)
async def chat(
    body: ChatRequest, flow: ChatFlowDep, gate: StreamGateDep, limits: ChatLimitsDep, principal: PrincipalDep
) -> RunStreamResponse:
    """Stream one diagnosis run: metadata, statuses, one content or failure, done."""
    if len(body.query) > limits.max_query_chars:
        raise QueryTooLong()
    opened, permit = await admit_and_open(
        gate, lambda: flow.open(session_id=body.session_id, query=body.query, principal=principal)
    )
    shutdown = StreamShutdown()
    frames = run_frames(
        opened,
        flow.start,
        ChatProtocol(),
        cancel_grace_s=limits.cancel_grace_s,
        ping_s=limits.sse_ping_s,
        shutdown=shutdown,
    )
    return streaming_response(gate, permit, opened, frames, shutdown)
