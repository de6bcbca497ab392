"""A small load over real TCP: 60 chat runs at concurrency 12, about a third dropped by their client.

Every run must end in a terminal state, the step and tool counts on each run must equal its rows in the
trace API (and the tables), and no admission permit, run task or open-stream gauge may leak. The
full figure (500 runs at concurrency 32) is a benchmark in tests/bench.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from api.app import create_app
from api.settings import Settings
from tests.support.app_state import count_rows, services_of
from tests.support.live_server import live_server

HOSTILE_WORLD = Path(__file__).resolve().parents[1] / "data" / "hostile"
RUNS = 60
CONCURRENCY = 12
DISCONNECT_SHARE = 1 / 3
SEED = 20_270_301
TERMINAL = {"SUCCESS", "FAILED", "CANCELLED"}
QUESTIONS = ("why is billing failing?", "is ledger-db healthy?", "what changed in billing?", "hello")


@dataclass(slots=True)
class Plan:
    """What one client does: its question, and after how many frames it hangs up (None: never)."""

    session_id: str
    query: str
    leave_after: int | None


@dataclass(slots=True)
class Seen:
    session_id: str
    run_id: str
    events: list[str]


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[FastAPI, str]]:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'load.db'}",
        world_dir=HOSTILE_WORLD,
        # Admission is not under test here: a dropped stream frees its permit a moment later.
        chat={"max_workers": CONCURRENCY * 2},
    )
    app = create_app(settings)
    async with live_server(app) as url:
        yield app, url


def _plans() -> list[Plan]:
    rng = random.Random(SEED)
    return [
        Plan(
            session_id=f"load-{i}",
            query=rng.choice(QUESTIONS),
            leave_after=rng.randint(1, 4) if rng.random() < DISCONNECT_SHARE else None,
        )
        for i in range(RUNS)
    ]


async def _client(url: str, plan: Plan) -> Seen:
    seen = Seen(plan.session_id, "", [])
    async with (
        httpx.AsyncClient(base_url=url, timeout=30) as client,
        client.stream("POST", "/api/chat", json={"sessionId": plan.session_id, "query": plan.query}) as r,
    ):
        assert r.status_code == 200, await r.aread()
        async for line in r.aiter_lines():
            if line.startswith("event:"):
                seen.events.append(line.split(":", 1)[1].strip())
            elif line.startswith("data:") and '"run_id"' in line:
                seen.run_id = line.split('"run_id":"', 1)[1].split('"', 1)[0]
            if plan.leave_after is not None and len(seen.events) >= plan.leave_after and not line:
                break  # leaving the block closes the connection mid-stream
    return seen


async def _all(url: str, plans: list[Plan]) -> list[Seen]:
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(plan: Plan) -> Seen:
        async with gate:
            return await _client(url, plan)

    return list(await asyncio.gather(*(one(plan) for plan in plans)))


async def _settled(app: FastAPI, within_s: float = 20.0) -> None:
    services = services_of(app)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while services.chat.active or services.admission.in_use:
        assert loop.time() < deadline, "runs or permits still held after the load"
        await asyncio.sleep(0.05)


async def test_sixty_runs_with_random_disconnects_end_terminal_and_leak_nothing(
    served: tuple[FastAPI, str],
) -> None:
    app, url = served
    plans = _plans()
    leaving = [p for p in plans if p.leave_after is not None]
    assert 12 <= len(leaving) <= 30  # the seed really drops about a third

    seen = await _all(url, plans)
    await _settled(app)
    services = services_of(app)
    assert services.admission.in_use == 0 and not services.chat.active
    assert services.metrics.registry.get_sample_value("superbiz_active_streams") == 0

    steps = tools = 0
    cancelled = 0
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        for plan, run in zip(plans, seen, strict=True):
            assert run.run_id, f"{plan.session_id} got no metadata"
            summaries = (await client.get(f"/api/chat/session/{plan.session_id}/runs")).json()["data"]
            assert [s["runId"] for s in summaries] == [run.run_id]
            summary = summaries[0]
            assert summary["status"] in TERMINAL, (plan, summary)
            trace = await client.get(f"/api/diagnosis/{plan.session_id}/trace", params={"runId": run.run_id})
            data = trace.json()["data"]
            assert summary["stepCount"] == len(data["steps"])
            assert summary["toolCallCount"] == len(data["toolInvocations"])
            steps, tools = steps + len(data["steps"]), tools + len(data["toolInvocations"])
            if plan.leave_after is None:
                assert run.events[-1] == "done" and summary["status"] == "SUCCESS"
            elif summary["status"] == "CANCELLED":
                cancelled += 1
                assert summary["cancelReason"] == "CLIENT_DISCONNECT" and "done" not in run.events
            else:
                assert summary["status"] == "SUCCESS"  # finished before its client left
    # A run may finish just before its client's drop is seen; most drops land while it is in flight.
    assert cancelled >= len(leaving) // 2
    assert await count_rows(app, "diagnosis_run") == RUNS
    assert await count_rows(app, "agent_step") == steps
    assert await count_rows(app, "tool_invocation") == tools
