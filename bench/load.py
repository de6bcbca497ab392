"""The load client: chat runs over real HTTP with httpx, timed per run, at a fixed concurrency."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.figures import ItemResult, Target, percentile

DEMO_QUESTION = "Why is checkout slow and failing for customers right now?"


@dataclass(slots=True)
class RunTiming:
    """One streamed run as the client saw it."""

    latency_s: float = 0.0
    to_metadata_s: float = 0.0
    events: list[str] = field(default_factory=list)
    payloads: list[str] = field(default_factory=list)
    session_id: str = ""
    run_id: str = ""
    outcome: str = ""
    status_code: int = 0

    @property
    def ok(self) -> bool:
        return self.status_code == 200 and bool(self.events) and self.events[-1] == "done"


@dataclass(slots=True)
class LoadResult:
    """A closed-loop load run: every run's timing and the wall time of the whole batch."""

    concurrency: int
    timings: list[RunTiming]
    wall_s: float

    @property
    def completed(self) -> list[RunTiming]:
        return [t for t in self.timings if t.ok]

    @property
    def runs_per_s(self) -> float:
        return len(self.completed) / self.wall_s if self.wall_s else 0.0

    def summary(self) -> dict[str, Any]:
        done = self.completed
        return {
            "concurrency": self.concurrency,
            "runs": len(self.timings),
            "completed": len(done),
            "wall_s": round(self.wall_s, 3),
            "runs_per_s": round(self.runs_per_s, 3),
            "p50_ms": round(percentile([t.latency_s for t in done], 50) * 1000, 2),
            "p99_ms": round(percentile([t.latency_s for t in done], 99) * 1000, 2),
            "metadata_p50_ms": round(percentile([t.to_metadata_s for t in done], 50) * 1000, 2),
            "metadata_p99_ms": round(percentile([t.to_metadata_s for t in done], 99) * 1000, 2),
            "outcomes": sorted({t.outcome for t in done}),
            "status_codes": sorted({t.status_code for t in self.timings}),
        }

    def report(self, result: ItemResult, label: str, *, target_ms: Target | None = None) -> None:
        """Add runs/s, p50/p99 latency and time to metadata as figures named `label ...`."""
        s = self.summary()
        result.add(f"{label} runs/s", s["runs_per_s"], "runs/s")
        result.add(f"{label} latency p50", s["p50_ms"], "ms")
        result.add(f"{label} latency p99", s["p99_ms"], "ms", target_ms)
        result.add(f"{label} time to metadata p50", s["metadata_p50_ms"], "ms")
        if s["completed"] < s["runs"]:
            result.add(f"{label} runs not completed", s["runs"] - s["completed"], "runs")


def client(base_url: str | Sequence[str] = "", *, timeout_s: float = 120.0) -> httpx.AsyncClient:
    """An httpx client without a connection cap (the bench sets concurrency itself)."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    url = base_url if isinstance(base_url, str) else ""
    return httpx.AsyncClient(base_url=url, timeout=timeout_s, limits=limits)


async def chat_run(
    http: httpx.AsyncClient, url: str, *, query: str = DEMO_QUESTION, session_id: str | None = None
) -> RunTiming:
    """POST /api/chat and read the whole stream, timing the metadata event and the end."""
    body: dict[str, Any] = {"query": query}
    if session_id:
        body["sessionId"] = session_id
    timing = RunTiming()
    started = time.perf_counter()
    async with http.stream("POST", f"{url}/api/chat", json=body) as response:
        timing.status_code = response.status_code
        if response.status_code != 200:
            await response.aread()
            timing.latency_s = time.perf_counter() - started
            return timing
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                _note(timing, event, line[5:].strip(), started)
    timing.latency_s = time.perf_counter() - started
    return timing


def _note(timing: RunTiming, event: str, data: str, started: float) -> None:
    timing.events.append(event)
    timing.payloads.append(data)
    if event == "metadata":
        timing.to_metadata_s = time.perf_counter() - started
        parsed = json.loads(data)
        timing.session_id, timing.run_id = parsed["session_id"], parsed["run_id"]
    elif event == "done":
        timing.outcome = json.loads(data)["outcome"]


async def read_until_status(response: httpx.Response) -> AsyncIterator[str]:
    """Read lines up to the first `status` event; returns the still-open line iterator.

    Keep the iterator referenced: an abandoned `aiter_lines()` generator closes the response when it
    is finalised, which would disconnect the client earlier than the caller intends.
    """
    lines = response.aiter_lines()
    async for line in lines:
        if line.startswith("event:") and line[6:].strip() == "status":
            break
    return lines


async def closed_loop(
    call: Callable[[int], Awaitable[RunTiming]], *, concurrency: int, total: int
) -> LoadResult:
    """`total` calls, `concurrency` in flight at any time; each worker starts the next when one ends."""
    counter = itertools.count()
    timings: list[RunTiming] = []

    async def worker() -> None:
        while (index := next(counter)) < total:
            timings.append(await call(index))

    started = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for _ in range(min(concurrency, total)):
            group.create_task(worker())
    return LoadResult(concurrency, timings, time.perf_counter() - started)
