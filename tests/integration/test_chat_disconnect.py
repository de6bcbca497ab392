"""Client disconnect over real TCP: the exact run is cancelled, its model call aborted, nothing leaks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from api.app import create_app
from api.settings import Settings
from tests.support.app_state import services_of
from tests.support.live_server import live_server
from tests.support.scripted_llm import ScriptedLLM, Sleep

pytestmark = pytest.mark.llm


@pytest.fixture
async def served(llm: ScriptedLLM, tmp_path: Path) -> AsyncIterator[tuple[FastAPI, str]]:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'disconnect.db'}",
        model={"base_url": llm.base_url, "name": "scripted", "api_key": "test", "timeout_s": 60},
    )
    app = create_app(settings)
    async with live_server(app) as url:
        yield app, url


async def _open_then_leave(url: str, session_id: str, llm: ScriptedLLM) -> str:
    """Read metadata and the first status, wait until the model call is in flight, then drop."""
    async with (
        httpx.AsyncClient(base_url=url, timeout=10) as client,
        client.stream("POST", "/api/chat", json={"sessionId": session_id, "query": "why?"}) as response,
    ):
        assert response.status_code == 200
        seen: list[str] = []
        run_id = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                seen.append(line.split(":", 1)[1].strip())
            if line.startswith("data:") and '"run_id"' in line:
                run_id = line.split('"run_id":"', 1)[1].split('"', 1)[0]
            if "status" in seen:
                await _until(lambda: llm.in_flight > 0)
                break
    return run_id


async def _until(predicate: object, within: float = 10.0) -> None:
    assert callable(predicate)
    deadline = asyncio.get_running_loop().time() + within
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


async def test_disconnect_during_model_call_cancels_exactly_that_run(
    llm: ScriptedLLM, served: tuple[FastAPI, str]
) -> None:
    app, url = served
    llm.push(Sleep(30))
    run_id = await _open_then_leave(url, "dc-1", llm)
    await _until(lambda: llm.disconnects == 1)
    services = services_of(app)
    await _until(lambda: not services.chat.lifecycle.active and services.admission.in_use == 0)
    trace = await services.runs.load_trace(session_id="dc-1", run_id=run_id)
    assert trace.run.status == "CANCELLED"
    assert trace.run.cancel_reason == "CLIENT_DISCONNECT"
    assert trace.answer is None
    partial = trace.orchestration_trace
    assert partial is not None and partial["termination_reason"] == "CANCELLED"
    assert partial["path"] and partial["path"][0] == "router"
    assert {"from": "__start__", "to": "router"} in partial["transitions"]
    assert all(t["to"] != "__end__" for t in partial["transitions"])


async def test_fifty_disconnects_leak_no_task_and_no_permit(
    llm: ScriptedLLM, served: tuple[FastAPI, str]
) -> None:
    app, url = served
    services = services_of(app)
    llm.push(*[Sleep(30) for _ in range(50)])
    baseline = len(asyncio.all_tasks())
    for i in range(50):
        await _open_then_leave(url, f"dc-many-{i}", llm)
        await _until(lambda i=i: llm.disconnects == i + 1)
    await _until(lambda: not services.chat.lifecycle.active and services.admission.in_use == 0, within=30)
    await asyncio.sleep(0.2)
    assert len(asyncio.all_tasks()) <= baseline + 2  # the uvicorn server's own idle tasks may vary
    statuses = []
    for i in range(50):
        runs = await services.runs.list_runs(session_id=f"dc-many-{i}")
        statuses += [r.status for r in runs]
    assert statuses == ["CANCELLED"] * 50
