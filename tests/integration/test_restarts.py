"""The served process: it runs on uvloop and httptools; SIGKILL leaves RUNNING runs that the next
start finishes as INTERRUPTED, with the steps and tool calls they had stored by then (a live run
stores them within a second); SIGTERM cancels in-flight runs cleanly within the grace period."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvloop

from persistence.db import make_engine, make_sessionmaker
from persistence.runs import RunStore
from tests.support.live_server import free_port
from tests.support.scripted_llm import ScriptedLLM, Sleep

pytestmark = pytest.mark.llm


def _start_server(
    db_url: str, llm: ScriptedLLM, port: int, extra: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "SUPERBIZ_DATABASE_URL": db_url,
        "SUPERBIZ_MODEL__BASE_URL": llm.base_url,
        "SUPERBIZ_MODEL__NAME": "scripted",
        "SUPERBIZ_MODEL__API_KEY": "test",
        "SUPERBIZ_MODEL__TIMEOUT_S": "60",
        "SUPERBIZ_CHAT__CANCEL_GRACE_S": "3",
        "SUPERBIZ_LOG_LEVEL": "WARNING",
        **(extra or {}),
    }
    command = [sys.executable, "-m", "api.cli", "serve", "--port", str(port)]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def _ready(url: str) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=2) as client:
        for _ in range(200):
            try:
                if (await client.get("/readyz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError("server did not become ready")


async def _hold_chat(url: str, session_id: str, started: asyncio.Event) -> None:
    """Open a chat and keep reading until the server goes away."""
    try:
        async with (
            httpx.AsyncClient(base_url=url, timeout=60) as client,
            client.stream("POST", "/api/chat", json={"sessionId": session_id, "query": "why?"}) as response,
        ):
            async for _ in response.aiter_lines():
                started.set()
    except httpx.HTTPError:
        pass


async def _statuses(db_url: str) -> dict[str, tuple[str, str | None]]:
    engine = make_engine(db_url)
    try:
        store = RunStore(make_sessionmaker(engine), worker_id="test-reader")
        found = {}
        for session in ("done-1", "slow-1", "slow-2"):
            if await store.get_session(session_id=session) is None:
                continue
            for run in await store.list_runs(session_id=session):
                found[session] = (run.status, run.failure_code or run.cancel_reason)
        return found
    finally:
        await engine.dispose()


async def _start_slow_runs(url: str, llm: ScriptedLLM) -> list[asyncio.Task[None]]:
    llm.push(Sleep(60), Sleep(60))
    events = [asyncio.Event(), asyncio.Event()]
    tasks = [asyncio.create_task(_hold_chat(url, f"slow-{i + 1}", events[i])) for i in range(2)]
    for event in events:
        await asyncio.wait_for(event.wait(), 20)
    deadline = asyncio.get_running_loop().time() + 20
    while llm.in_flight < 2:
        assert asyncio.get_running_loop().time() < deadline, "model calls never started"
        await asyncio.sleep(0.05)
    return tasks


async def _finished_run(url: str) -> None:
    # Nothing scripted: every model call fails with 500 and each step degrades to the rules.
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        body = {"sessionId": "done-1", "query": "why is checkout slow?"}
        text = (await client.post("/api/chat", json=body)).text
    assert '"outcome":"SUCCESS"' in text


async def test_served_process_runs_on_uvloop_and_httptools(llm: ScriptedLLM, tmp_path: Path) -> None:
    port = free_port()
    server = _start_server(f"sqlite+aiosqlite:///{tmp_path / 'serve.db'}", llm, port)
    try:
        await _ready(f"http://127.0.0.1:{port}")
        await _finished_run(f"http://127.0.0.1:{port}")
        mapped = await asyncio.to_thread(Path(f"/proc/{server.pid}/maps").read_text)
    finally:
        server.terminate()
        await asyncio.to_thread(server.wait, 15)
    # The native extensions are mapped only once uvicorn has imported and used them.
    assert "/uvloop/loop." in mapped
    assert "/httptools/parser/parser." in mapped


async def test_integration_tests_run_on_the_loop_the_server_runs_on() -> None:
    assert isinstance(asyncio.get_running_loop(), uvloop.Loop)  # tests/integration/conftest.py


async def test_sigkill_then_restart_finishes_running_runs_as_interrupted(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    db_url = f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = _start_server(db_url, llm, port)
    try:
        await _ready(url)
        await _finished_run(url)
        tasks = await _start_slow_runs(url, llm)
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        await asyncio.gather(*tasks)
        assert (await _statuses(db_url))["slow-1"][0] == "RUNNING"
    finally:
        server.kill()
    restarted = _start_server(db_url, llm, port)
    try:
        await _ready(url)
        statuses = await _statuses(db_url)
    finally:
        restarted.terminate()
        restarted.wait(15)
    assert statuses == {
        "done-1": ("SUCCESS", None),
        "slow-1": ("FAILED", "INTERRUPTED"),
        "slow-2": ("FAILED", "INTERRUPTED"),
    }


async def test_sigterm_cancels_in_flight_runs_within_the_grace_period(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    db_url = f"sqlite+aiosqlite:///{tmp_path / 'term.db'}"
    port = free_port()
    server = _start_server(db_url, llm, port)
    url = f"http://127.0.0.1:{port}"
    try:
        await _ready(url)
        tasks = await _start_slow_runs(url, llm)
        started = asyncio.get_running_loop().time()
        server.send_signal(signal.SIGTERM)
        await asyncio.to_thread(server.wait, 30)
        elapsed = asyncio.get_running_loop().time() - started
        await asyncio.gather(*tasks)
    finally:
        server.kill()
    assert server.returncode is not None and elapsed < 20
    statuses = await _statuses(db_url)
    assert statuses["slow-1"] == statuses["slow-2"] == ("CANCELLED", "SHUTDOWN")
    assert llm.disconnects == 2


# A shared database is swept by heartbeat age: short here, so the restarted worker sweeps in time.
_CRASH_ENV = {
    "SUPERBIZ_MODEL__MAX_RETRIES": "0",
    "SUPERBIZ_DATABASE__ORPHAN_AFTER_S": "1",
    "SUPERBIZ_DATABASE__SWEEP_INTERVAL_S": "0.25",
}


async def _trace_once_interrupted(url: str, session_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        for _ in range(200):
            run = (await client.get(f"/api/chat/session/{session_id}/runs")).json()["data"][0]
            if run["status"] != "RUNNING":
                trace = await client.get(f"/api/diagnosis/{session_id}/trace", params={"runId": run["runId"]})
                data: dict[str, Any] = trace.json()["data"]
                return data
            await asyncio.sleep(0.1)
    raise AssertionError("the killed run was never swept")


async def test_sigkill_keeps_the_steps_a_live_run_had_finished_a_second_before(
    llm: ScriptedLLM, app_database_url: str
) -> None:
    # Route and plan degrade to the rules at once (unscripted: HTTP 500); the draft never answers.
    llm.script("Draft", Sleep(60))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = _start_server(app_database_url, llm, port, _CRASH_ENV)
    try:
        await _ready(url)
        started = asyncio.Event()
        holder = asyncio.create_task(_hold_chat(url, "crash-1", started))
        deadline = asyncio.get_running_loop().time() + 30
        while llm.in_flight < 1:  # router, planner and executors are done: the draft is asked for
            assert asyncio.get_running_loop().time() < deadline, "the draft was never requested"
            await asyncio.sleep(0.05)
        await asyncio.sleep(2.0)  # longer than the one second within which finished rows are stored
        server.send_signal(signal.SIGKILL)
        await asyncio.to_thread(server.wait, 10)
        await holder
    finally:
        server.kill()
    restarted = _start_server(app_database_url, llm, port, _CRASH_ENV)
    try:
        await _ready(url)
        data = await _trace_once_interrupted(url, "crash-1")
    finally:
        restarted.terminate()
        await asyncio.to_thread(restarted.wait, 15)
    run = data["run"]
    assert (run["status"], run["failureCode"]) == ("FAILED", "INTERRUPTED")
    nodes = [step["node"] for step in data["steps"]]
    # Everything that finished before the draft was asked for (discovery and targeted planning
    # rounds, each with its executors), and not the draft that was still in flight.
    assert nodes[:2] == ["router", "planner"] and "executors" in nodes and "diagnose" not in nodes
    assert data["toolInvocations"], "the evidence calls the executors made are stored"
    assert (run["stepCount"], run["toolCallCount"]) == (len(nodes), len(data["toolInvocations"]))
