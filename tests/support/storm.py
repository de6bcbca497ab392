"""A disconnect storm: many chats below the worker limit, about half dropped by their client mid-stream.

Shared by the storm integration test and the disconnect bench item. Unlike `load.client_run`, a 503
is counted, not a failure: the storm is about how many admissions a dropped run costs the next client.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx
from fastapi import FastAPI

from tests.support import load
from tests.support.app_state import services_of

RUNS, CONCURRENCY, DROP_SHARE = 300, 15, 0.5  # concurrency just below the default 16 workers
SEED = 18_009


@dataclass(slots=True)
class StormResult:
    """What the clients saw (503s, admitted runs by session id) and what the server still held."""

    rejected: int
    admitted: dict[str, str]
    permits_held: int
    tasks_left: int
    streams_open: float


async def _one(client: httpx.AsyncClient, plan: load.Plan) -> tuple[int, str]:
    run_id = ""
    frames = 0
    body = {"sessionId": plan.session_id, "query": plan.query}
    async with client.stream("POST", "/api/chat", json=body) as response:
        if response.status_code != 200:
            await response.aread()
            return response.status_code, ""
        async for line in response.aiter_lines():
            if line.startswith("data:") and '"run_id"' in line:
                run_id = line.split('"run_id":"', 1)[1].split('"', 1)[0]
            frames += line.startswith("event:")
            if plan.leave_after is not None and frames >= plan.leave_after and not line:
                break  # leaving the block closes the connection mid-stream
    return 200, run_id


async def storm(app: FastAPI, url: str, *, runs: int = RUNS, concurrency: int = CONCURRENCY) -> StormResult:
    """Run the storm, wait until the server holds nothing (bounded), and report."""
    plans = load.plans(runs, seed=SEED, disconnect_share=DROP_SHARE, prefix="storm")
    gate = asyncio.Semaphore(concurrency)

    async def guarded(plan: load.Plan) -> tuple[int, str]:
        async with gate, httpx.AsyncClient(base_url=url, timeout=60) as client:
            return await _one(client, plan)

    seen = await asyncio.gather(*(guarded(plan) for plan in plans))
    await load.settled(app, within_s=120)
    services = services_of(app)
    streams = services.metrics.registry.get_sample_value("superbiz_active_streams") or 0.0
    pairs = zip(plans, seen, strict=True)
    admitted = {plan.session_id: run_id for plan, (code, run_id) in pairs if code == 200}
    return StormResult(
        rejected=sum(code == 503 for code, _ in seen),
        admitted=admitted,
        permits_held=services.admission.in_use,
        tasks_left=len(services.chat.lifecycle.active),
        streams_open=streams,
    )


async def not_terminal(url: str, admitted: dict[str, str]) -> list[str]:
    """The admitted runs whose stored status is not terminal (or that cannot be read back)."""
    left = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        for session_id, run_id in admitted.items():
            summaries = (await client.get(f"/api/chat/session/{session_id}/runs")).json()["data"]
            statuses = {s["runId"]: s["status"] for s in summaries}
            if statuses.get(run_id) not in load.TERMINAL:
                left.append(run_id or session_id)
    return left
