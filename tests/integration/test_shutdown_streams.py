"""SIGTERM to `superbiz serve` while a chat stream and an AIOps stream wait on a slow model: each stream
ends with its SHUTDOWN frames (chat: failure + done; AIOps: its terminal error frame) before the
process exits, and both runs are stored CANCELLED with the reason SHUTDOWN."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse

from api.shutdown import SHUTDOWN_MESSAGE
from persistence.db import make_engine, make_sessionmaker
from persistence.runs import RunStore
from tests.integration.test_restarts import _ready, _start_server
from tests.support.live_server import free_port
from tests.support.scripted_llm import ScriptedLLM, Sleep

pytestmark = pytest.mark.llm


async def _read(url: str, path: str, body: dict[str, Any], opened: asyncio.Event) -> list[tuple[str, Any]]:
    """Every frame of one stream until the server ends it."""
    frames: list[tuple[str, Any]] = []
    async with (
        httpx.AsyncClient(base_url=url, timeout=60) as client,
        aconnect_sse(client, "POST", path, json=body) as source,
    ):
        assert source.response.status_code == 200
        async for event in source.aiter_sse():
            frames.append((event.event, json.loads(event.data)))
            opened.set()
    return frames


async def _stored(db_url: str, session_id: str) -> tuple[str, str | None]:
    engine = make_engine(db_url)
    try:
        store = RunStore(make_sessionmaker(engine), worker_id="test-reader")
        (run,) = await store.list_runs(session_id=session_id)
        return run.status, run.cancel_reason
    finally:
        await engine.dispose()


async def test_sigterm_ends_every_open_stream_with_shutdown_frames(llm: ScriptedLLM, tmp_path: Path) -> None:
    db_url = f"sqlite+aiosqlite:///{tmp_path / 'shutdown.db'}"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = _start_server(db_url, llm, port)
    try:
        await _ready(url)
        llm.push(*[Sleep(60)] * 4)  # whatever asks the model first waits a minute
        opened = [asyncio.Event(), asyncio.Event()]
        chat = asyncio.create_task(
            _read(url, "/api/chat", {"sessionId": "term-chat", "query": "why is checkout slow?"}, opened[0])
        )
        aiops = asyncio.create_task(_read(url, "/api/ai_ops", {"sessionId": "term-aiops"}, opened[1]))
        for event in opened:
            await asyncio.wait_for(event.wait(), 30)
        deadline = asyncio.get_running_loop().time() + 30
        while llm.in_flight < 2:  # both runs are inside a model call
            assert asyncio.get_running_loop().time() < deadline, "model calls never started"
            await asyncio.sleep(0.05)
        server.send_signal(signal.SIGTERM)
        chat_frames, aiops_frames = await asyncio.gather(chat, aiops)
        await asyncio.to_thread(server.wait, 30)
    finally:
        server.kill()
    assert [name for name, _ in chat_frames if name != "status"] == ["metadata", "failure", "done"]
    assert chat_frames[-2:] == [
        ("failure", {"code": "SHUTDOWN", "message": SHUTDOWN_MESSAGE}),
        ("done", {"outcome": "FAILED"}),
    ]
    assert [data["type"] for _, data in aiops_frames] == ["metadata", "error"]
    assert aiops_frames[-1] == ("message", {"type": "error", "code": "SHUTDOWN", "data": SHUTDOWN_MESSAGE})
    assert await _stored(db_url, "term-chat") == ("CANCELLED", "SHUTDOWN")
    assert await _stored(db_url, "term-aiops") == ("CANCELLED", "SHUTDOWN")
