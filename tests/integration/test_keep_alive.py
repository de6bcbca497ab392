"""An idle stream sends keep-alive comments (proxies close silent connections) and still ends in `done`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.live_server import live_server
from tests.support.scripted_llm import ScriptedLLM, Sleep

pytestmark = pytest.mark.llm

PING_S = 0.05


@pytest.fixture
async def url(llm: ScriptedLLM, tmp_path: Path) -> AsyncIterator[str]:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'keep-alive.db'}",
        model={"base_url": llm.base_url, "name": "scripted", "api_key": "test", "timeout_s": 60},
        chat={"sse_ping_s": PING_S},
    )
    async with live_server(create_app(settings)) as served:
        yield served


async def _lines(url: str, path: str, body: dict[str, object]) -> list[str]:
    async with (
        httpx.AsyncClient(base_url=url, timeout=20) as client,
        client.stream("POST", path, json=body) as response,
    ):
        assert response.status_code == 200
        return [line async for line in response.aiter_lines() if line]


async def test_a_chat_waiting_on_a_slow_model_pings_until_its_run_ends(llm: ScriptedLLM, url: str) -> None:
    llm.push(Sleep(0.6))  # the first model call is held, then fails: the step degrades to rules
    lines = await _lines(url, "/api/chat", {"query": "why is checkout slow and what changed?"})
    events = [line.split(":", 1)[1].strip() for line in lines if line.startswith("event:")]
    pings = [line for line in lines if line.startswith(":")]
    assert llm.requests  # the held call really happened: the pings cover its silence
    assert events[0] == "metadata" and events[-1] == "done"
    assert len(pings) >= 5 and all(line == ": ping" for line in pings)
    first_ping, done = lines.index(pings[0]), lines.index("event: done")
    assert lines.index("event: metadata") < first_ping < done


async def test_an_aiops_scan_waiting_on_a_slow_model_pings_until_it_ends(llm: ScriptedLLM, url: str) -> None:
    llm.push(*[Sleep(0.3) for _ in range(4)])  # every model call of the scan is held, then fails
    lines = await _lines(url, "/api/ai_ops", {})
    messages = [line for line in lines if line.startswith("data:")]
    pings = [line for line in lines if line.startswith(":")]
    assert llm.requests
    assert '"type":"metadata"' in messages[0] and '"type":"done"' in messages[-1]
    assert len(pings) >= 3 and all(line == ": ping" for line in pings)
    assert lines.index(messages[0]) < lines.index(pings[0]) < lines.index(messages[-1])
