"""Item 3: time from a client disconnect to the run's task being done, mid model call."""

from __future__ import annotations

import asyncio
import time

import httpx

from api.run_lifecycle import RunLifecycle
from bench.figures import ItemResult, Target, percentile
from bench.load import DEMO_QUESTION, client, read_until_status
from bench.plan import BenchContext
from bench.serving import bench_settings, database, served, services
from tests.support.scripted_llm import ScriptedLLM, Sleep, scripted_llm

TARGET_P99_MS = Target("<", 50)
TARGET_SURVIVORS = Target("<=", 0)


def model_settings(llm: ScriptedLLM, **extra: object) -> dict[str, object]:
    """The `model` block pointing at the scripted server, with room for many concurrent calls."""
    return {
        "base_url": llm.base_url,
        "name": "scripted",
        "api_key": "x",
        "max_concurrent_calls": 512,
        **extra,
    }


async def until(predicate: object, timeout_s: float = 10.0) -> bool:
    assert callable(predicate)
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.002)
    return True


async def run(ctx: BenchContext) -> ItemResult:
    result = ItemResult("cancellation", "Cancellation: client disconnect during a model call")
    delays: list[float] = []
    async with scripted_llm() as llm:
        llm.push(*[Sleep(60.0) for _ in range(ctx.sizes.disconnects)])  # whichever call comes first
        with database("sqlite", ctx.endpoints) as url:
            settings = bench_settings(url, model=model_settings(llm, timeout_s=120))
            async with served(settings) as (app, base), client() as http:
                chat = services(app).chat
                for _ in range(ctx.sizes.disconnects):
                    delay = await _disconnect_once(http, base, llm, chat.lifecycle)
                    if delay is not None:
                        delays.append(delay)
                await until(lambda: not chat.lifecycle.active, 10.0)
                await asyncio.sleep(0.1)
                survivors = len(chat.lifecycle.active) + sum(
                    1 for t in asyncio.all_tasks() if t.get_name().startswith("run-") and not t.done()
                )
                await until(lambda: llm.disconnects >= len(delays), 5.0)
    result.add("disconnects measured", len(delays), "runs")
    result.add("disconnect → run task done p50", percentile(delays, 50) * 1000, "ms")
    result.add("disconnect → run task done p99", percentile(delays, 99) * 1000, "ms", TARGET_P99_MS)
    result.add("run tasks surviving their run", survivors, "tasks", TARGET_SURVIVORS)
    result.add("model calls aborted (scripted server saw the disconnect)", llm.disconnects, "calls")
    return result


async def _disconnect_once(
    http: httpx.AsyncClient, base: str, llm: ScriptedLLM, registry: RunLifecycle
) -> float | None:
    """Open a run, wait until its model call is in flight, drop the connection, time the task's end."""
    await until(lambda: llm.in_flight == 0 and not registry.active)  # the previous run is fully gone
    finished: dict[str, float] = {}
    async with http.stream("POST", f"{base}/api/chat", json={"query": DEMO_QUESTION}) as response:
        lines = await read_until_status(response)
        if not await until(lambda: llm.in_flight > 0 and len(registry.active) == 1):
            return None
        task = registry.active[0]
        task.add_done_callback(lambda _: finished.setdefault("at", time.perf_counter()))
        dropped = time.perf_counter()
        del lines
    await until(lambda: "at" in finished, 10.0)
    return finished["at"] - dropped if "at" in finished else None
