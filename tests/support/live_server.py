"""A real uvicorn server inside the test's event loop (no thread), for tests where a connection matters."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from starlette.types import ASGIApp


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def live_server(app: ASGIApp) -> AsyncIterator[str]:
    """Serve `app` (lifespan included) on a free 127.0.0.1 port; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
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
