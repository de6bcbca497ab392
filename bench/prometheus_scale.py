"""Item: discovery and a whole diagnosis against real Prometheus TSDBs of growing size (issue 20, item 7).

Each size is backfilled with promtool (`bench/tsdb.py`) and served by a real Prometheus whose alert
rule fires on one host's filesystem. The service's own Prometheus client and toolbox, on default
settings, then run (1) the discovery calls the planner makes (every metrics/alerts discovery tool of
the catalog, with the planner's arguments) on their own and (2) one whole diagnosis through the
in-process diagnoser, each on an idle Prometheus with a fresh client, toolbox and cache. Bytes are
counted where the HTTP client reads them (a wrapping transport): what crossed the wire, capped or not.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from api.backends import build_sources
from api.composition import build_toolbox, tool_limits
from api.diagnoser import build_diagnoser
from api.settings import Settings
from bench.figures import ItemResult, Target
from bench.openmetrics import ALERT_RULE
from bench.plan import BenchContext
from bench.tsdb import Backfill, available, backfill, cpu_seconds, prometheus_on, settle
from graph.runner import RunRequest
from tools.base import Evidence, EvidenceSource
from tools.evidence_store import RunEvidence
from tools.toolbox.catalog import DISCOVERY_TOOLS, TOOLS_BY_NAME

QUESTION = f"Why is {ALERT_RULE} firing?"
RATIO_TARGET = Target("<=", 1.3)
NO_CAPS = Target("<=", 0)
_DISCOVERY_SOURCES = (EvidenceSource.METRICS, EvidenceSource.ALERTS)
# A call "hit a cap" when it was cut (truncated) or refused for its size (the raw byte cap's error).
_CAP_WORDS = ("cap", "exceeded", "too large", "too many")
# Discovery takes tens of milliseconds, where this shared VM's noise is of the same size: more samples.
_DISCOVERY_SAMPLES = 3


class _CountedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, meter: ByteMeter, path: str, started: float) -> None:
        self._inner, self._meter, self._path, self._started = inner, meter, path, started

    async def __aiter__(self) -> AsyncIterator[bytes]:
        by_path = self._meter.by_path
        async for chunk in self._inner:
            self._meter.bytes += len(chunk)
            by_path[self._path] = by_path.get(self._path, 0) + len(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()
        # Request sent to body closed: Prometheus's work plus the read (concurrent calls overlap).
        spent = self._meter.seconds_by_path
        spent[self._path] = spent.get(self._path, 0.0) + time.perf_counter() - self._started


@dataclass(slots=True)
class ByteMeter(httpx.AsyncBaseTransport):
    """The service's HTTP transport, counting the response bytes the client reads and the requests."""

    inner: httpx.AsyncBaseTransport = field(default_factory=httpx.AsyncHTTPTransport)
    bytes: int = 0
    requests: int = 0
    by_path: dict[str, int] = field(default_factory=dict)  # bytes per API path, for the JSON
    seconds_by_path: dict[str, float] = field(default_factory=dict)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        started = time.perf_counter()
        response = await self.inner.handle_async_request(request)
        self.requests += 1
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _CountedStream(response.stream, self, request.url.path, started)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass(frozen=True, slots=True)
class Cost:
    """What one measured piece of work cost: bytes read from Prometheus, wall time, calls, caps."""

    bytes: int
    seconds: float
    requests: int
    calls: int
    capped: tuple[str, ...]  # "tool: STATUS summary" of each call that hit a cap
    by_path: Mapping[str, int] = field(default_factory=dict)
    seconds_by_path: Mapping[str, float] = field(default_factory=dict)
    # CPU seconds of Prometheus's process and of this one (the service's client, toolbox and analyst)
    # while the piece ran: what each side's work cost, whatever else the shared VM was doing.
    prometheus_cpu_s: float = 0.0
    service_cpu_s: float = 0.0


@dataclass(frozen=True, slots=True)
class SizeRow:
    series: int
    backfill: Backfill
    discovery: Cost
    diagnosis: Cost
    outcome: str


class _ToolLog:
    """A run observer keeping each tool call's evidence and arguments."""

    def __init__(self) -> None:
        self.evidence: list[Evidence] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def on_status(self, code: str) -> None:
        return None

    async def on_node(self, node: str, status: str, duration_ms: float, summary: str) -> None:
        return None

    async def on_tool(self, evidence: Evidence, args: Mapping[str, Any]) -> None:
        self.evidence.append(evidence)
        self.calls.append((evidence.tool, dict(args)))


def hit_cap(evidence: Evidence) -> bool:
    summary = evidence.summary.lower()
    return evidence.truncated or (not evidence.status.succeeded and any(w in summary for w in _CAP_WORDS))


def _capped(evidence: Sequence[Evidence]) -> tuple[str, ...]:
    return tuple(f"{e.tool}: {e.status.value} {e.summary[:120]}" for e in evidence if hit_cap(e))


def discovery_tools() -> list[str]:
    """The catalog's discovery tools over metrics and alerts (whatever the tree declares now)."""
    return sorted(n for n in DISCOVERY_TOOLS if TOOLS_BY_NAME[n].source in _DISCOVERY_SOURCES)


def discovery_calls(planned: Sequence[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """The discovery calls the planner made (with its arguments), and every other discovery tool
    with none, so that a discovery tool the planner skipped is still measured."""
    made = [(tool, args) for tool, args in planned if tool in discovery_tools()]
    return made + [(tool, {}) for tool in discovery_tools() if tool not in {t for t, _ in made}]


@dataclass(slots=True)
class _Clocks:
    """Wall time and both processes' CPU time from `start()` to `stop()`."""

    server_pid: int | None
    wall_s: float = 0.0
    server_cpu_s: float = 0.0
    own_cpu_s: float = 0.0

    def start(self) -> None:
        self.wall_s, self.own_cpu_s = time.perf_counter(), time.process_time()
        self.server_cpu_s = cpu_seconds(self.server_pid) if self.server_pid else 0.0

    def stop(self) -> None:
        self.wall_s = time.perf_counter() - self.wall_s
        self.own_cpu_s = time.process_time() - self.own_cpu_s
        self.server_cpu_s = cpu_seconds(self.server_pid) - self.server_cpu_s if self.server_pid else 0.0

    def cost(self, meter: ByteMeter, evidence: Sequence[Evidence]) -> Cost:
        return Cost(
            meter.bytes,
            self.wall_s,
            meter.requests,
            len(evidence),
            _capped(evidence),
            meter.by_path,
            meter.seconds_by_path,
            self.server_cpu_s,
            self.own_cpu_s,
        )


async def _discovery(
    settings: Settings, calls: Sequence[tuple[str, dict[str, Any]]], server_pid: int | None = None
) -> Cost:
    meter, clocks = ByteMeter(), _Clocks(server_pid)
    async with httpx.AsyncClient(transport=meter, timeout=settings.backends.tool_timeout_s) as http:
        toolbox = build_toolbox(build_sources(settings, http, cases=None), tool_limits(settings))
        run = RunEvidence(budget_bytes=1 << 30)
        clocks.start()
        found = [await toolbox.call(tool, args, run) for tool, args in calls]
        clocks.stop()
    return clocks.cost(meter, found)


async def _diagnosis(
    settings: Settings, server_pid: int | None = None
) -> tuple[Cost, str, list[tuple[str, dict[str, Any]]]]:
    meter, clocks = ByteMeter(), _Clocks(server_pid)
    log = _ToolLog()
    async with httpx.AsyncClient(transport=meter, timeout=settings.backends.tool_timeout_s) as http:
        toolbox = build_toolbox(build_sources(settings, http, cases=None), tool_limits(settings))
        diagnoser = build_diagnoser(settings, toolbox, use_model=False)
        request = RunRequest(run_id="scale", session_id="scale", query=QUESTION)
        clocks.start()
        result = await diagnoser.start(request, observer=log).result()
        clocks.stop()
    return clocks.cost(meter, log.evidence), result.outcome, log.calls


def _median_cost(costs: Sequence[Cost]) -> Cost:
    """Median wall time; mean CPU times (the process clocks tick every 10 ms: a sum over the samples
    resolves tens of milliseconds); bytes, calls and caps of the first (they repeat with the data)."""
    first = costs[0]
    seconds = statistics.median(c.seconds for c in costs)
    server_cpu = statistics.fmean(c.prometheus_cpu_s for c in costs)
    own_cpu = statistics.fmean(c.service_cpu_s for c in costs)
    return Cost(
        first.bytes,
        seconds,
        first.requests,
        first.calls,
        first.capped,
        first.by_path,
        first.seconds_by_path,
        server_cpu,
        own_cpu,
    )


async def measure_size(series: int, folder: Path, repeats: int) -> SizeRow:
    tsdb = backfill(folder, series=series)
    discoveries, diagnoses = [], []
    async with prometheus_on(tsdb) as server:
        settings = Settings(prometheus_url=server.url)
        # The warm-up (Prometheus's caches, this process's imports) also says what the planner discovers.
        _, outcome, planned = await _diagnosis(settings)
        for _ in range(repeats):
            # Each piece starts on an idle Prometheus: a capped read leaves it computing the rest.
            await settle(server.pid)
            for _ in range(_DISCOVERY_SAMPLES):
                discoveries.append(await _discovery(settings, discovery_calls(planned), server.pid))
            await settle(server.pid)
            diagnosis, outcome, planned = await _diagnosis(settings, server.pid)
            diagnoses.append(diagnosis)
    return SizeRow(tsdb.series, tsdb, _median_cost(discoveries), _median_cost(diagnoses), outcome)


async def measure_sizes(sizes: Sequence[int], repeats: int) -> list[SizeRow]:
    rows = []
    for series in sizes:
        with tempfile.TemporaryDirectory(prefix="superbiz-bench-tsdb-") as folder:
            rows.append(await measure_size(series, Path(folder), repeats))
    return rows


def size_table(rows: Sequence[SizeRow]) -> str:
    """One Markdown row per size: what making the TSDB cost and what discovery and a diagnosis read."""
    lines = [
        "| series | generate s | backfill s | TSDB MB | discovery KB | discovery s | discovery CPU ms "
        "(Prometheus / service) | diagnosis KB | diagnosis s | diagnosis CPU ms (Prometheus / service) "
        "| diagnosis calls | capped calls | outcome |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        b, d, g = row.backfill, row.discovery, row.diagnosis
        lines.append(
            f"| {row.series:,} | {b.generate_s:.1f} | {b.backfill_s:.1f} | {b.tsdb_bytes / 1e6:.1f} "
            f"| {d.bytes / 1e3:,.1f} | {d.seconds:.3f} | {_cpu_ms(d)} "
            f"| {g.bytes / 1e3:,.1f} | {g.seconds:.3f} | {_cpu_ms(g)} "
            f"| {g.calls} | {len(d.capped) + len(g.capped)} | {row.outcome} |"
        )
    return "\n".join(lines)


def _cpu_ms(cost: Cost) -> str:
    return f"{cost.prometheus_cpu_s * 1e3:.0f} / {cost.service_cpu_s * 1e3:.0f}"


def _ratio(large: float, small: float) -> float:
    return large / small if small > 0 else float("nan")


def judge(result: ItemResult, rows: Sequence[SizeRow]) -> None:
    """Largest / smallest size against the 1.3x target, and the caps hit at any size."""
    small, large = rows[0], rows[-1]
    tag = f"{large.series // 1000}k/{small.series // 1000}k" if small.series >= 1000 else "largest/smallest"
    for part in ("discovery", "diagnosis"):
        a, b = getattr(large, part), getattr(small, part)
        result.add(f"{part} bytes read {tag}", _ratio(a.bytes, b.bytes), "x", RATIO_TARGET)
        result.add(f"{part} wall time {tag}", _ratio(a.seconds, b.seconds), "x", RATIO_TARGET)
        # Wall time on a shared VM carries its load; CPU time says whose work grew (no target).
        result.add(f"{part} Prometheus CPU {tag}", _ratio(a.prometheus_cpu_s, b.prometheus_cpu_s), "x")
        result.add(f"{part} service CPU {tag}", _ratio(a.service_cpu_s, b.service_cpu_s), "x")
    for row in rows:
        result.add(f"{row.series:,} series: discovery bytes read", row.discovery.bytes, "B")
        result.add(f"{row.series:,} series: diagnosis bytes read", row.diagnosis.bytes, "B")
        result.add(f"{row.series:,} series: diagnosis wall time", row.diagnosis.seconds, "s")
    capped = sum(len(r.discovery.capped) + len(r.diagnosis.capped) for r in rows)
    result.add("calls that hit a cap (every size, default settings)", capped, "calls", NO_CAPS)


async def run(ctx: BenchContext) -> ItemResult:
    result = ItemResult("prometheus_scale", "Discovery and a diagnosis on backfilled Prometheus TSDBs")
    missing = available()
    if missing is not None:
        result.error = missing
        return result
    rows = await measure_sizes(ctx.sizes.prometheus_series, ctx.sizes.prometheus_repeats)
    table = size_table(rows)
    print(
        f"\nprometheus_scale: {QUESTION!r}, discovery tools {', '.join(discovery_tools())}\n{table}\n",
        flush=True,
    )
    judge(result, rows)
    result.details = {
        "table": table,
        "discovery_tools": discovery_tools(),
        "rows": [_row_json(row) for row in rows],
    }
    return result


def _row_json(row: SizeRow) -> dict[str, Any]:
    b = row.backfill
    return {
        "series": row.series,
        "generate_s": round(b.generate_s, 2),
        "backfill_s": round(b.backfill_s, 2),
        "openmetrics_bytes": b.openmetrics_bytes,
        "tsdb_bytes": b.tsdb_bytes,
        "discovery": _cost_json(row.discovery),
        "diagnosis": _cost_json(row.diagnosis),
        "outcome": row.outcome,
    }


def _cost_json(cost: Cost) -> dict[str, Any]:
    return {"bytes": cost.bytes, "seconds": round(cost.seconds, 4), "requests": cost.requests,
            "calls": cost.calls, "capped": list(cost.capped), "by_path": dict(cost.by_path),
            "seconds_by_path": {k: round(v, 4) for k, v in cost.seconds_by_path.items()},
            "prometheus_cpu_s": round(cost.prometheus_cpu_s, 4),
            "service_cpu_s": round(cost.service_cpu_s, 4)}  # fmt: skip
