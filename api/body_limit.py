"""Request body size limit as plain ASGI middleware: 413 before the body is buffered anywhere."""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import PayloadTooLarge, error_response


class BodyLimit:
    """Reject bodies over `max_bytes` by Content-Length, or while counting streamed chunks."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # Not a coroutine itself: the app's awaitable is handed back (no frame held per stream).
        if scope["type"] != "http":
            return self.app(scope, receive, send)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = self.max_bytes + 1
                if declared > self.max_bytes:
                    return _reject(scope, receive, send)
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # FastAPI turns other exceptions raised while reading the body into 400.
                    raise HTTPException(PayloadTooLarge.status_code)
            return message

        return self.app(scope, counting_receive, send)


async def _reject(scope: Scope, receive: Receive, send: Send) -> None:
    # Before the app runs, so the error handlers cannot answer: the same body, built by errors.py.
    too_large = PayloadTooLarge()
    response = error_response(
        too_large.status_code, too_large.code, too_large.public_message, headers={"Connection": "close"}
    )
    await response(scope, receive, send)
