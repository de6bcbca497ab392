"""Item 6: one and two `superbiz serve` worker processes sharing PostgreSQL and Redis.

The client sends each run to the worker with the fewest runs in flight, as a least-connections load
balancer would (round-robin kept feeding a worker that had fallen behind while the other idled); a
two-turn conversation is sent turn 1 to one worker and turn 2 to the other, and must keep its context
(message pairs in the database, turns in Redis).

Each phase also splits the machine's CPU per run between the workers, PostgreSQL and Redis, the
client and the rest (`cpu_split`), and a third phase runs one worker beside a CPU-bound process, to
show how much a worker's own cost per run grows when the other core is busy.
"""

from __future__ import annotations

import os
import statistics
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import psycopg
import redis.asyncio as aioredis
from sqlalchemy.engine import make_url

from bench.cpu_split import CpuPerRun, cpu_per_run, snapshot
from bench.figures import ItemResult, Target
from bench.load import RunTiming, chat_run, client, closed_loop
from bench.machine import cpu_bound_neighbour, two_cores_speedup
from bench.plan import BenchContext
from bench.raw_client import RawChatClient
from bench.serving import ServedProcess, postgres_database, serve_process

# Judged against the ratio this machine's CPU allows in the same round (saturated, one worker does
# 1 / its CPU per run runs/s, two do 2 / all the CPU a run costs on the shared cores): what is missing
# from that bound is the service's own contention. A fixed 2x (or 1.7x) is a property of this 2-core
# VM as much as of the service; the plain two / one ratio is still printed.
SHARE_OF_BOUND_TARGET = Target(">=", 0.95)


@asynccontextmanager
async def worker(database_url: str, redis_url: str, log: Path) -> AsyncIterator[ServedProcess]:
    """One `superbiz serve` process on a free port."""
    env = {"SUPERBIZ_DATABASE_URL": database_url, "SUPERBIZ_REDIS_URL": redis_url}
    async with serve_process(env, log) as served:
        yield served


async def _load(workers: list[ServedProcess], ctx: BenchContext) -> tuple[float, CpuPerRun]:
    """Runs/s over the workers, least runs in flight first, from the raw-socket client (`raw_client`),
    and the CPU per run it cost."""
    async with client() as http:
        for served in workers:
            await chat_run(http, served.url)  # warm each worker
    clients = [RawChatClient(served.url) for served in workers]
    in_flight = dict.fromkeys(range(len(clients)), 0)

    async def least_busy(index: int) -> RunTiming:
        # A least-connections balancer: round-robin would keep feeding a worker that has fallen
        # behind while the other one idles.
        chosen = min(in_flight, key=lambda n: (in_flight[n], n))
        in_flight[chosen] += 1
        try:
            return await clients[chosen].run(index)
        finally:
            in_flight[chosen] -= 1

    before = snapshot()
    try:
        load = await closed_loop(
            least_busy,
            concurrency=ctx.sizes.scale_out_concurrency,
            total=ctx.sizes.scale_out_runs,
        )
    finally:
        for raw in clients:
            await raw.close()
    cpu = cpu_per_run(
        before,
        snapshot(),
        runs=len(load.completed),
        workers={served.pid for served in workers},
        client=os.getpid(),
    )
    if len(load.completed) < len(load.timings):
        raise RuntimeError(f"{len(load.timings) - len(load.completed)} scale-out runs did not complete")
    return load.runs_per_s, cpu


async def _conversation(urls: list[str], database_url: str, redis_url: str) -> dict[str, Any]:
    session = f"bench-{uuid.uuid4().hex[:12]}"
    async with client() as http:
        first = await chat_run(http, urls[0], session_id=session, query="Why is checkout slow?")
        second = await chat_run(http, urls[1], session_id=session, query="And what should we do about it?")
    dsn = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT message_pair_count FROM chat_session WHERE session_id = %s", (session,)
        ).fetchone()
    store = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = [key async for key in store.scan_iter(match=f"*{session}*")]
        turns = sum([await _length(store, key) for key in keys])
        for key in keys:
            await store.delete(key)
    finally:
        await store.aclose()
    return {
        "outcomes": [first.outcome, second.outcome],
        "message_pair_count": row[0] if row else 0,
        "redis_turns": turns,
    }


async def _length(store: aioredis.Redis, key: str) -> int:
    kind = await store.type(key)
    if kind == "list":
        return int(await store.llen(key))
    if kind == "zset":
        return int(await store.zcard(key))
    if kind == "hash":
        return int(await store.hlen(key))
    return 1


async def _round(first: ServedProcess, second: ServedProcess, ctx: BenchContext) -> dict[str, float]:
    """One worker, two workers, one worker beside a CPU-bound process, and the machine's ceiling."""
    one, one_cpu = await _load([first], ctx)  # the second worker idles meanwhile
    two, two_cpu = await _load([first, second], ctx)
    async with cpu_bound_neighbour():
        _, neighbour_cpu = await _load([first], ctx)
    ceiling = await two_cores_speedup()
    # Saturated, one worker does 1 / (its CPU per run) runs/s and two do 2 / (all CPU per run).
    allowed = 2 * one_cpu.workers_ms / (two_cpu.workers_ms + two_cpu.besides_workers_ms)
    # The same if a worker cost no more per run beside another: what the rest alone leaves.
    unshared = 2 * one_cpu.workers_ms / (one_cpu.workers_ms + two_cpu.besides_workers_ms)
    return {
        "one": one,
        "two": two,
        "speedup": two / one if one else float("nan"),
        "machine": ceiling,
        "one_worker_ms": one_cpu.workers_ms,
        "one_core_share": one * one_cpu.workers_ms / 1000,
        "one_idle_ms": one_cpu.idle_ms,
        "neighbour_ms": neighbour_cpu.workers_ms,
        "two_workers_ms": two_cpu.workers_ms,
        "two_databases_ms": two_cpu.databases_ms,
        "two_client_ms": two_cpu.client_ms,
        "two_other_ms": two_cpu.other_ms,
        "two_idle_ms": two_cpu.idle_ms,
        "allowed": allowed,
        "unshared": unshared,
    }


async def run(ctx: BenchContext) -> ItemResult:
    result = ItemResult("scale_out", "Scale-out: one vs two worker processes on PostgreSQL + Redis")
    log = Path("bench-results/workers.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    redis_url = ctx.endpoints.redis_url
    rounds: list[dict[str, float]] = []
    with postgres_database(ctx.endpoints.pg_url) as url:
        async with AsyncExitStack() as stack:
            first = await stack.enter_async_context(worker(url, redis_url, log))
            second = await stack.enter_async_context(worker(url, redis_url, log))
            # This VM's speed drifts by tens of percent within a minute: one phase of each, one after
            # the other, read anywhere from 1.0x to 2.0x. Interleaved rounds, compared pairwise.
            for _ in range(max(1, ctx.sizes.repeats)):
                rounds.append(await _round(first, second, ctx))
            conversation = await _conversation([first.url, second.url], url, redis_url)
    median = {name: statistics.median(r[name] for r in rounds) for name in rounds[0]}
    result.add("one worker", median["one"], "runs/s")
    result.add("two workers", median["two"], "runs/s")
    result.add("two / one (median of interleaved rounds)", median["speedup"], "x")
    result.add("this machine: two CPU-bound processes / one (no I/O, nothing shared)", median["machine"], "x")
    shares = [r["speedup"] / r["machine"] for r in rounds]
    result.add("two / one as a share of the machine's two / one", 100 * statistics.median(shares), "%")
    result.add("CPU per run, one worker: the worker", median["one_worker_ms"], "ms")
    # The bound below assumes one worker is CPU-bound: it then uses a whole core.
    result.add(
        "one worker: share of a core it used (runs/s x CPU per run)", 100 * median["one_core_share"], "%"
    )
    result.add("CPU per run, one worker beside a CPU-bound process: the worker", median["neighbour_ms"], "ms")
    result.add("CPU per run, two workers: the workers", median["two_workers_ms"], "ms")
    result.add("CPU per run, two workers: PostgreSQL and Redis", median["two_databases_ms"], "ms")
    result.add("CPU per run, two workers: the load client", median["two_client_ms"], "ms")
    result.add("CPU per run, two workers: kernel and the rest", median["two_other_ms"], "ms")
    result.add(
        "two / one these CPU costs allow: 2 x one worker / (two workers + the rest)", median["allowed"], "x"
    )
    result.add("the same if two workers cost per run what one alone does", median["unshared"], "x")
    result.add(
        "two / one as a share of what these CPU costs allow (median of rounds)",
        statistics.median(r["speedup"] / r["allowed"] for r in rounds),
        "x",
        SHARE_OF_BOUND_TARGET,
    )
    result.add(
        "turn 2 on the other worker: message pairs",
        float(conversation["message_pair_count"]),
        "pairs",
        Target(">=", 2),
    )
    result.add(
        "turn 2 on the other worker: turns in Redis",
        float(conversation["redis_turns"]),
        "turns",
        Target(">=", 2),
    )
    result.details = {"conversation": conversation, "rounds": rounds}
    return result
