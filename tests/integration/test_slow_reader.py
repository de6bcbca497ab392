"""A client that stops reading: the SSE send timeout ends the stream, and a run still in flight is cancelled.

Over real loopback TCP. Both socket buffers are locked small (the server's listening socket sets
SO_SNDBUF, which accepted sockets inherit and which turns off Linux's send-buffer autotuning; the
client sets SO_RCVBUF), so a reader that never calls recv() stalls the server's sends after roughly
80 KiB (both kernel buffers plus the transport's 64 KiB write high-water mark).

Before its content a chat stream sends well under 1 KiB (metadata and statuses), so a stalled reader
can only block a send during a run through the keep-alive pings: with a 1 ms ping interval they fill
the pipe within seconds while the model call is held open. The content itself is released only after
the run is stored, so a reader that stalls on a huge report cannot leave it RUNNING either.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from api.app import create_app
from api.settings import Settings
from tests.integration.test_prompt_injection import DRAFT, PLAN, ROUTE
from tests.support.app_state import services_of
from tests.support.live_server import live_server
from tests.support.scripted_llm import ScriptedLLM, Sleep, ToolCall

pytestmark = pytest.mark.llm

HOSTILE_WORLD = Path(__file__).resolve().parents[1] / "data" / "hostile"
SMALL_BUFFER = 4_096
SEND_TIMEOUT_S = 0.2


@asynccontextmanager
async def small_buffer_server(app: FastAPI) -> AsyncIterator[int]:
    """Serve `app` on a listening socket whose accepted connections have a small, locked send buffer."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_BUFFER)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        async with live_server(app, listener=listener):
            yield listener.getsockname()[1]
    finally:
        listener.close()


async def open_stalled_chat(port: int, session_id: str) -> socket.socket:
    """POST /api/chat from a socket with a small receive buffer, and never read from it."""
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)
    client.setblocking(False)
    loop = asyncio.get_running_loop()
    await loop.sock_connect(client, ("127.0.0.1", port))
    body = json.dumps({"sessionId": session_id, "query": "why is billing failing?"}).encode()
    head = (
        "POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    await loop.sock_sendall(client, head + body)
    return client


async def received(client: socket.socket) -> bytes:
    """Everything the server managed to deliver before it gave up (read now, at last)."""
    loop = asyncio.get_running_loop()
    data = b""
    while True:
        try:
            async with asyncio.timeout(1.0):
                chunk = await loop.sock_recv(client, 65_536)
        except (TimeoutError, ConnectionError):
            return data
        if not chunk:
            return data
        data += chunk


async def until(condition: Callable[[], bool], within_s: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while not condition():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


def _app(llm: ScriptedLLM, tmp_path: Path, **chat: Any) -> FastAPI:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'slow.db'}",
        world_dir=HOSTILE_WORLD,
        model={"base_url": llm.base_url, "name": "scripted", "api_key": "test", "timeout_s": 120},
        chat={"sse_send_timeout_s": SEND_TIMEOUT_S, **chat},
    )
    return create_app(settings)


def _stream_closed(app: FastAPI) -> Callable[[], bool]:
    services = services_of(app)

    def closed() -> bool:
        streams = services.metrics.registry.get_sample_value("superbiz_active_streams")
        return streams == 0 and services.admission.in_use == 0 and not services.chat.lifecycle.active

    return closed


def _finished_runs(app: FastAPI, status: str, outcome: str) -> float:
    labels = {"flow": "CHAT", "status": status, "outcome": outcome}
    registry = services_of(app).metrics.registry
    return registry.get_sample_value("superbiz_runs_total", labels) or 0.0


async def test_reader_stalled_during_a_run_gets_the_run_cancelled(
    llm: ScriptedLLM, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    llm.script("Route", ToolCall(ROUTE))
    llm.script("Plan", ToolCall(PLAN), ToolCall({"calls": []}))
    llm.script("Draft", Sleep(90))  # the run waits on its model until something cancels it
    app = _app(llm, tmp_path, sse_ping_s=0.001)
    async with small_buffer_server(app) as port:
        client = await open_stalled_chat(port, "stalled-run")
        try:
            await until(lambda: llm.in_flight == 1, within_s=10)
            await until(_stream_closed(app), within_s=60)  # pings fill the pipe; a send times out
            delivered = await received(client)
        finally:
            client.close()
        await until(lambda: llm.disconnects == 1, within_s=10)  # the model call was aborted too
        runs = await services_of(app).runs.list_runs(session_id="stalled-run")
    assert [(r.status, r.cancel_reason) for r in runs] == [("CANCELLED", "CLIENT_DISCONNECT")]
    assert b"event: metadata" in delivered and b"event: done" not in delivered
    assert len(delivered) > SMALL_BUFFER  # it really was the pings that filled the pipe
    # A stalled reader is not a server error: no "unexpected error" traceback, a warning instead.
    assert not [r for r in caplog.records if r.name == "superbiz.api"]
    assert any("send timed out" in r.getMessage() for r in caplog.records if r.name == "superbiz.sse")


async def test_reader_stalled_on_a_huge_report_ends_the_stream_with_the_run_stored(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    huge = {**DRAFT, "summary": "The billing service timed out calling ledger-db. " * 5_000}
    llm.script("Route", ToolCall(ROUTE))
    llm.script("Plan", ToolCall(PLAN), ToolCall({"calls": []}))
    llm.script("Draft", ToolCall(huge))
    app = _app(llm, tmp_path)
    async with small_buffer_server(app) as port:
        client = await open_stalled_chat(port, "stalled-report")
        try:
            await until(lambda: _finished_runs(app, "SUCCESS", "SUCCESS") == 1, within_s=30)
            await until(_stream_closed(app), within_s=30)
            delivered = await received(client)
        finally:
            client.close()
        runs = await services_of(app).runs.list_runs(session_id="stalled-report")
    assert [(r.status, r.outcome) for r in runs] == [("SUCCESS", "SUCCESS")]
    # The server gave up part-way through the report instead of blocking on the reader.
    assert b"event: content" in delivered and b"event: done" not in delivered
