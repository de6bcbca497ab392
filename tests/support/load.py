"""Chat load with random client disconnects, shared by the load test and the load benchmark."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

import httpx
from fastapi import FastAPI

from tests.support.app_state import services_of

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


def plans(runs: int, *, seed: int, disconnect_share: float, prefix: str = "load") -> list[Plan]:
    rng = random.Random(seed)
    return [
        Plan(
            session_id=f"{prefix}-{i}",
            query=rng.choice(QUESTIONS),
            leave_after=rng.randint(1, 4) if rng.random() < disconnect_share else None,
        )
        for i in range(runs)
    ]


async def client_run(url: str, plan: Plan) -> Seen:
    """Stream one chat, hanging up after `plan.leave_after` frames when it says so."""
    seen = Seen(plan.session_id, "", [])
    async with (
        httpx.AsyncClient(base_url=url, timeout=60) as client,
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


async def run_all(url: str, all_plans: list[Plan], concurrency: int) -> list[Seen]:
    gate = asyncio.Semaphore(concurrency)

    async def one(plan: Plan) -> Seen:
        async with gate:
            return await client_run(url, plan)

    return list(await asyncio.gather(*(one(plan) for plan in all_plans)))


async def settled(app: FastAPI, within_s: float = 30.0) -> None:
    """Wait until no run task and no admission permit is held."""
    services = services_of(app)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while services.chat.lifecycle.active or services.admission.in_use:
        assert loop.time() < deadline, "runs or permits still held after the load"
        await asyncio.sleep(0.05)
