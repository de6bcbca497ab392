"""Request body read deadline as plain ASGI middleware: a body not received in time is 408.

Without it a client that sends its headers and part of a body holds a connection and a handler
forever (30 half-sent requests were still held after 80 s). The deadline covers the whole body, not
each chunk, so a byte every few seconds cannot stretch it; once the body is complete, `receive()` is
left alone (an SSE response waits on it for the client's disconnect for as long as the stream lasts).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTimeout:
    """Answer 408 (and close the connection) when the body is not complete within `timeout_s`."""

    def __init__(self, app: ASGIApp, *, timeout_s: float) -> None:
        self.app = app
        self.timeout_s = timeout_s

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # Not a coroutine itself: the app's awaitable is handed back (no frame held per stream).
        if scope["type"] != "http":
            return self.app(scope, receive, send)
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        complete = False

        async def bounded_receive() -> Message:
            nonlocal deadline, complete
            if complete:
                return await receive()
            if deadline is None:  # from the first read: a handler that never reads waits for nothing
                deadline = loop.time() + self.timeout_s
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                # FastAPI re-raises an HTTPException from the body read (any other error becomes 400).
                raise HTTPException(408, headers={"Connection": "close"}) from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                complete = True
            return message

        return self.app(scope, bounded_receive, send)
