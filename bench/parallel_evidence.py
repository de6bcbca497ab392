"""Item 2: three evidence backends each delayed 200 ms; the executors' wall time per round."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from bench.delayed_sources import CallLog, delay_sources
from bench.figures import ItemResult, Target
from bench.load import chat_run, client
from bench.plan import BenchContext
from bench.serving import bench_settings, database, served, services
from persistence import tables

DELAY_S = 0.2
TARGET = Target("<=", 1.15)


async def run(ctx: BenchContext) -> ItemResult:
    result = ItemResult("parallel_evidence", "Parallel evidence: alerts, metrics, logs each delayed 200 ms")
    log = CallLog(DELAY_S)
    rounds: list[float] = []
    executor_rounds: list[float] = []
    with database("sqlite", ctx.endpoints) as url:
        # A tiny cache lifetime: every run must really reach the (delayed) backends.
        settings = bench_settings(url, backends={"cache_ttl_s": 0.001})
        async with served(settings) as (app, base), client() as http:
            delay_sources(services(app).diagnosis.toolbox.sources, log)
            await chat_run(http, base)  # warm-up: fills the memo of backend answers
            log.calls.clear()
            for _ in range(ctx.sizes.evidence_runs):
                before = len(log.calls)
                timing = await chat_run(http, base)
                rounds += _round_walls(log.calls[before:])
                executor_rounds += await _executor_walls(services(app).engine, timing.run_id)
    worst_round = max(rounds, default=float("nan"))
    worst_executors = max((w for w in executor_rounds if w >= DELAY_S * 1000 * 0.5), default=float("nan"))
    result.add("delayed calls per run", len(log.calls) / max(1, ctx.sizes.evidence_runs), "calls")
    result.add("backend wall per round, worst", worst_round * 1000, "ms")
    result.add("executors wall per delayed round, worst", worst_executors, "ms")
    result.add("executors wall / one backend's delay", worst_executors / (DELAY_S * 1000), "x", TARGET)
    result.details = {
        "round_walls_ms": [round(r * 1000, 1) for r in rounds],
        "executor_rounds_ms": executor_rounds,
    }
    return result


def _round_walls(calls: list[tuple[str, float, float]]) -> list[float]:
    """Cluster overlapping calls into rounds; a round's wall is its last end minus its first start."""
    walls: list[float] = []
    start = end = None
    for _source, began, ended in sorted(calls, key=lambda c: c[1]):
        if end is not None and start is not None and began > end:
            walls.append(end - start)
            start = None
        start = began if start is None else start
        end = ended if end is None else max(end, ended)
    if start is not None and end is not None:
        walls.append(end - start)
    return walls


async def _executor_walls(engine: Any, run_id: str) -> list[float]:
    """Per executor round (consecutive executor steps), the longest lane's duration in ms."""
    step = tables.metadata.tables["agent_step"]
    query = sa.select(step.c.node, step.c.duration_ms).where(step.c.run_id == run_id).order_by(step.c.seq)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    walls: list[float] = []
    current: list[float] = []
    for node, duration in [*rows, ("__end__", 0.0)]:
        if node == "executors":
            current.append(float(duration))
        elif current:
            walls.append(round(max(current), 2))
            current = []
    return walls
