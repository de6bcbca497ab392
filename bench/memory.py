"""Item 4: RSS per open stream (200 held on a slow model) and RSS growth over many runs.

Open streams are measured on a `superbiz serve` process of its own: its RSS is the service's alone,
without the bench client or the scripted model server (which keeps every request it saw). The
growth loop runs in this process (in-loop uvicorn), so its figure is an upper bound.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from pathlib import Path

import httpx

from bench.cancellation import until
from bench.figures import ItemResult, Target
from bench.load import DEMO_QUESTION, chat_run, client, closed_loop, read_until_status
from bench.plan import BenchContext
from bench.serving import bench_settings, database, process_rss, serve_process, served
from tests.support.scripted_llm import Sleep, scripted_llm

STREAM_TARGET_KB = Target("<", 150)
GROWTH_TARGET_PCT = Target("<", 5)
GROWTH_CONCURRENCY = 8
GROWTH_CACHE_TTL_S = 0.5
WARM_GROWTH_RUNS = 300
WARM_STREAMS = 8


def rss_bytes() -> int:
    """Resident set size of this process, after a full collection."""
    gc.collect()
    return process_rss(os.getpid())


async def run(ctx: BenchContext) -> ItemResult:
    result = ItemResult("memory", "Memory: open streams and growth over many runs")
    await _open_streams(ctx, result)
    await _growth(ctx, result)
    return result


async def _open_streams(ctx: BenchContext, result: ItemResult) -> None:
    count = ctx.sizes.open_streams
    async with scripted_llm() as llm:
        llm.push(*[Sleep(120.0) for _ in range(count + WARM_STREAMS)])  # whichever call comes first
        with database("sqlite", ctx.endpoints) as url:
            env = {
                "SUPERBIZ_DATABASE_URL": url,
                "SUPERBIZ_MODEL__BASE_URL": llm.base_url,
                "SUPERBIZ_MODEL__NAME": "scripted",
                "SUPERBIZ_MODEL__API_KEY": "x",
                "SUPERBIZ_MODEL__MAX_CONCURRENT_CALLS": "512",
                "SUPERBIZ_MODEL__TIMEOUT_S": "180",
            }
            log = Path("bench-results/memory-server.log")
            async with serve_process(env, log) as server, client() as http:
                # Warm every code path and the fixed pools once, then let those runs end.
                release = asyncio.Event()
                warm = await _hold_streams(http, server.url, WARM_STREAMS, release, 0)
                release.set()
                await asyncio.gather(*warm, return_exceptions=True)
                await until(lambda: llm.in_flight == 0, 30.0)
                await asyncio.sleep(1.0)
                baseline = process_rss(server.pid)
                release = asyncio.Event()
                holders = await _hold_streams(http, server.url, count, release, 0)
                reached = await until(lambda: llm.in_flight >= count, 60.0)
                held = process_rss(server.pid)
                release.set()
                await asyncio.gather(*holders, return_exceptions=True)
    per_stream_kb = (held - baseline) / count / 1024
    result.add("open streams held (model call in flight)", llm.in_flight if not reached else count, "streams")
    result.add("RSS per open stream (service process)", per_stream_kb, "KB", STREAM_TARGET_KB)
    result.details["open_streams"] = {
        "baseline_mb": baseline / 2**20,
        "held_mb": held / 2**20,
        "reached": reached,
        "warm_streams": WARM_STREAMS,
    }


async def _hold_streams(
    http: httpx.AsyncClient, base: str, count: int, release: asyncio.Event, _: int
) -> list[asyncio.Task[None]]:
    opened = asyncio.Semaphore(0)

    async def hold() -> None:
        async with http.stream("POST", f"{base}/api/chat", json={"query": DEMO_QUESTION}) as response:
            lines = await read_until_status(response)
            opened.release()
            await release.wait()
            del lines

    tasks = [asyncio.create_task(hold()) for _ in range(count)]
    for _ in range(count):
        await opened.acquire()
    return tasks


async def _growth(ctx: BenchContext, result: ItemResult) -> None:
    """RSS before and after many runs, once every bounded cache is full.

    The evidence cache lifetime is cut to half a second: every run's tool results are new objects,
    so the caches keyed by them (digest facts, guard texts, the evidence cache itself) fill to their
    bounds during the warm-up instead of over minutes of wall time, and growth after it is a leak,
    not a cache filling. What still fills is the in-process session store (every run here is a new
    session, ~1 KB each, bounded by `max_sessions`).
    """
    sizes = ctx.sizes
    with database("sqlite", ctx.endpoints) as url:
        settings = bench_settings(url, backends={"cache_ttl_s": GROWTH_CACHE_TTL_S})
        async with served(settings) as (_app, base), client() as http:
            warm = min(WARM_GROWTH_RUNS, sizes.growth_runs)  # the quick plan keeps its warm-up short
            await closed_loop(lambda _: chat_run(http, base), concurrency=GROWTH_CONCURRENCY, total=warm)
            before = rss_bytes()
            deadline = time.monotonic() + sizes.growth_budget_s
            done = 0
            while done < sizes.growth_runs and time.monotonic() < deadline:
                batch = min(GROWTH_CONCURRENCY * 4, sizes.growth_runs - done)
                load = await closed_loop(
                    lambda _: chat_run(http, base), concurrency=GROWTH_CONCURRENCY, total=batch
                )
                done += len(load.completed)
            after = rss_bytes()
    growth = (after - before) / before * 100
    # The growth target is defined after `growth_runs` runs: the table says when the time cap cut it short.
    result.add("runs in the growth loop (time-capped)", done, "runs", Target(">=", sizes.growth_runs))
    result.add("RSS growth after the loop", growth, "%", GROWTH_TARGET_PCT)
    result.add("RSS growth per 1,000 runs", (after - before) / max(1, done) * 1000 / 2**20, "MB")
    result.details["growth"] = {"before_mb": before / 2**20, "after_mb": after / 2**20, "runs": done}
