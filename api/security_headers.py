"""Browser-facing security headers on every response, as plain ASGI middleware.

Pages may load scripts, styles and images from this origin only (the frontend has no inline script or
style), may not be framed, and never send a Referer; every response says its content type is final. A
response that sets its own Content-Security-Policy (the API docs page) keeps it.
"""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAGE_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": PAGE_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


class SecurityHeaders:
    """Adds `HEADERS` to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # Not a coroutine itself: the app's awaitable is handed back, so no frame of this
        # middleware stays alive for as long as a stream is open.
        if scope["type"] != "http":
            return self.app(scope, receive, send)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        return self.app(scope, receive, send_with_headers)
