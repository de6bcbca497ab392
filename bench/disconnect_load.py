"""Item 8, the load figure: chat runs at concurrency 32, a third dropped by their client.

Every run must end terminal, each run's step and tool counts must equal its rows, and no permit or
run task may be left over. Then the disconnect storm on each database: 300 chats at concurrency 15, just
below the default 16 workers, half dropped; a dropped run must not cost the next client a 503.
"""

from __future__ import annotations

import time

import httpx

from bench.figures import ItemResult, Target
from bench.plan import BenchContext
from bench.serving import bench_settings, database, served, services
from tests.support import load, storm

SEED = 9_021
RUNS, CONCURRENCY = 500, 32
QUICK_RUNS, QUICK_CONCURRENCY = 80, 16
QUICK_STORM_RUNS = 60


async def run(ctx: BenchContext) -> ItemResult:
    runs, concurrency = (QUICK_RUNS, QUICK_CONCURRENCY) if ctx.quick else (RUNS, CONCURRENCY)
    result = ItemResult("disconnect_load", f"{runs} runs at concurrency {concurrency}, ~1/3 dropped")
    plans = load.plans(runs, seed=SEED, disconnect_share=1 / 3, prefix="bench-load")
    with database("sqlite", ctx.endpoints) as url:
        async with served(bench_settings(url)) as (app, base):
            started = time.monotonic()
            seen = await load.run_all(base, plans, concurrency)
            wall = time.monotonic() - started
            await load.settled(app, within_s=60)
            in_use = services(app).admission.in_use + len(services(app).chat.lifecycle.active)
            not_terminal = mismatched = 0
            async with httpx.AsyncClient(base_url=base, timeout=60) as http:
                for plan, got in zip(plans, seen, strict=True):
                    trace = await http.get(
                        f"/api/diagnosis/{plan.session_id}/trace", params={"runId": got.run_id}
                    )
                    data = trace.json()["data"]
                    run_row = data["run"]
                    not_terminal += run_row["status"] not in load.TERMINAL
                    mismatched += run_row["stepCount"] != len(data["steps"])
                    mismatched += run_row["toolCallCount"] != len(data["toolInvocations"])
    result.add("runs/s", runs / wall, "1/s")
    result.add("runs not in a terminal state", not_terminal, "", Target("<=", 0))
    result.add("runs whose counts differ from their rows", mismatched, "", Target("<=", 0))
    result.add("permits + run tasks left after the load", in_use, "", Target("<=", 0))
    result.details = {"dropped": sum(p.leave_after is not None for p in plans), "wall_s": round(wall, 1)}
    for kind in ("sqlite", "postgres"):
        await _storm(ctx, kind, result)
    return result


async def _storm(ctx: BenchContext, kind: str, result: ItemResult) -> None:
    runs = QUICK_STORM_RUNS if ctx.quick else storm.RUNS
    with database(kind, ctx.endpoints) as url:
        # The default admission (16 workers): the storm is about what a dropped run holds.
        async with served(bench_settings(url, chat={"max_workers": storm.CONCURRENCY + 1})) as (app, base):
            seen = await storm.storm(app, base, runs=runs)
            left = await storm.not_terminal(base, seen.admitted)
    shape = f"{runs} runs at c={storm.CONCURRENCY} of 16 workers, half dropped"
    result.add(f"storm, {kind}: 503s ({shape})", seen.rejected, "", Target("<=", 0))
    held = len(left) + seen.permits_held + seen.tasks_left + seen.streams_open
    result.add(f"storm, {kind}: runs not terminal + permits, tasks, streams held", held, "", Target("<=", 0))
