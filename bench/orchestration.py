"""Item 1: full chat runs against their limit (bare SSE + no-op graph + one batched transaction) plus
the graph's own work in process (real nodes, no HTTP or database): what is left is orchestration."""

from __future__ import annotations

import statistics
from typing import Any

from api.settings import Settings
from bench.figures import ItemResult, Target
from bench.limits import (
    RunRows,
    bare_sse,
    batched_writes,
    graph_in_process,
    noop_langgraph,
    sample_rows,
)
from bench.load import chat_run, client, closed_loop
from bench.plan import BenchContext
from bench.serving import bench_settings, database, served

# Judged against the bare limit plus the in-process graph: the graph's nodes are work a run must do,
# not overhead of running it.
RATIO_TARGET = Target("<=", 1.25)
TARGET_CONCURRENCY = 16


async def run(ctx: BenchContext) -> ItemResult:
    result = ItemResult("orchestration", "Orchestration overhead against its limit (rule-based analyst)")
    for kind in ("sqlite", "postgres"):
        result.details[kind] = await _one_database(ctx, kind, result)
    return result


async def _one_database(ctx: BenchContext, kind: str, result: ItemResult) -> dict[str, Any]:
    details: dict[str, Any] = {}
    with database(kind, ctx.endpoints) as url:
        settings = bench_settings(url)
        async with served(settings) as (_app, base), client() as http:
            sample = await chat_run(http, base)  # warms the app and gives the run's shape
            rows = await sample_rows(url, sample.run_id)
            path = list((rows.run.get("orchestration_trace") or {}).get("path") or [])
            frames = list(zip(sample.events, sample.payloads, strict=True))
            details["shape"] = {"events": len(frames), "rows": rows.count, "path": path}
            for concurrency, total in ctx.sizes.load:
                label = f"{kind} c={concurrency}"
                # This shared 2-core VM is noisy: each part is measured `repeats` times, interleaved,
                # and the medians are compared (every repeat is kept in the JSON).
                rounds = [
                    await _round(base, settings, url, rows, frames, path, concurrency, total, ctx)
                    for _ in range(ctx.sizes.repeats)
                ]
                loads = [r.pop("load") for r in rounds]
                median_load = sorted(loads, key=lambda load: load.wall_s)[len(loads) // 2]
                median_load.report(result, label)
                parts = {name: statistics.median(r[name] for r in rounds) for name in rounds[0]}
                full_s, domain = parts.pop("full"), parts.pop("in_process_graph")
                limit_s = sum(parts.values())
                for name, seconds in parts.items():
                    result.add(f"{label} limit: {name}", seconds * 1000, "ms/run")
                result.add(f"{label} full run", full_s * 1000, "ms/run")
                target = RATIO_TARGET if concurrency == TARGET_CONCURRENCY else None
                result.add(f"{label} full / sum(limits)", full_s / limit_s, "x")
                result.add(f"{label} graph in-process, real nodes, no HTTP/DB", domain * 1000, "ms/run")
                ratio = full_s / (limit_s + domain)
                result.add(f"{label} full / (limits + in-process graph)", ratio, "x", target)
                details[label] = {
                    "load": median_load.summary(),
                    "median_ms": {k: round(v * 1000, 3) for k, v in parts.items()},
                    "repeats_ms": [{k: round(v * 1000, 3) for k, v in r.items()} for r in rounds],
                }
    return details


async def _round(
    base: str,
    settings: Settings,
    url: str,
    rows: RunRows,
    frames: list[tuple[str, str]],
    path: list[str],
    concurrency: int,
    total: int,
    ctx: BenchContext,
) -> dict[str, Any]:
    """One measurement of the full run and of each part of its limit, seconds per run."""
    async with client() as http:  # fresh: the server closes connections left idle while limits ran
        load = await closed_loop(lambda _: chat_run(http, base), concurrency=concurrency, total=total)
    return {
        "load": load,
        "full": load.wall_s / max(1, len(load.completed)),
        "bare_sse": await bare_sse(frames, concurrency=concurrency, total=total),
        "noop_graph": await noop_langgraph(path, concurrency=concurrency, total=total),
        "batched_write": await batched_writes(url, rows, concurrency=concurrency, total=total),
        "in_process_graph": await graph_in_process(
            settings, concurrency=concurrency, total=min(total, ctx.sizes.domain_runs)
        ),
    }
