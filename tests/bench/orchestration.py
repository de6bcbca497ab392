"""Item 1: full chat runs against their limit (bare SSE + no-op graph + one batched transaction)."""

from __future__ import annotations

from typing import Any

from tests.bench.figures import ItemResult, Target
from tests.bench.limits import bare_sse, batched_writes, graph_in_process, noop_langgraph, sample_rows
from tests.bench.load import chat_run, client, closed_loop
from tests.bench.plan import BenchContext
from tests.bench.serving import bench_settings, database, served

RATIO_TARGET = Target("<=", 1.5)
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
                load = await closed_loop(lambda _: chat_run(http, base), concurrency=concurrency, total=total)
                label = f"{kind} c={concurrency}"
                load.report(result, label)
                full_s = load.wall_s / max(1, len(load.completed))
                limit = {
                    "bare_sse": await bare_sse(frames, concurrency=concurrency, total=total),
                    "noop_graph": await noop_langgraph(path, concurrency=concurrency, total=total),
                    "batched_write": await batched_writes(url, rows, concurrency=concurrency, total=total),
                }
                domain = await graph_in_process(
                    settings, concurrency=concurrency, total=min(total, ctx.sizes.domain_runs)
                )
                limit_s = sum(limit.values())
                for name, seconds in limit.items():
                    result.add(f"{label} limit: {name}", seconds * 1000, "ms/run")
                result.add(f"{label} full run", full_s * 1000, "ms/run")
                target = RATIO_TARGET if concurrency == TARGET_CONCURRENCY else None
                result.add(f"{label} full / sum(limits)", full_s / limit_s, "x", target)
                result.add(f"{label} graph in-process, real nodes, no HTTP/DB", domain * 1000, "ms/run")
                result.add(f"{label} full / (limits + in-process graph)", full_s / (limit_s + domain), "x")
                details[label] = {
                    "load": load.summary(),
                    "limit_ms": {k: round(v * 1000, 3) for k, v in limit.items()},
                    "in_process_graph_ms": round(domain * 1000, 3),
                }
    return details
