"""A real uvicorn server inside the test's event loop (no thread), for tests where a connection matters."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from starlette.types import ASGIApp


def free_port() -> int:
    """A TCP port that was free a moment ago (the server binds it right after)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def live_server(app: ASGIApp, *, listener: socket.socket | None = None) -> AsyncIterator[str]:
    """Serve `app` (lifespan included) on a free 127.0.0.1 port, or on `listener` when given (a socket
    the test prepared, e.g. with small buffers); yields its base URL."""
    if listener is None:
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        task = asyncio.create_task(server.serve())
    else:
        port = listener.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        task = asyncio.create_task(server.serve(sockets=[listener]))
    while not server.started:
        if task.done():
            task.result()  # surface start-up errors
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        # should_exit, not handle_exit(): uvicorn would re-raise a captured signal into pytest.
        server.should_exit = True
        await asyncio.wait_for(task, 15)
