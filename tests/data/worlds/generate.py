"""Regenerates the `streaming` test world: a video platform whose transcoder leaks memory.

Everything differs from the demo shop on purpose (services, label keys `app`/`pod`, metric names,
log vocabulary), so tests can show the digest is not keyed to the demo world.
Run `python -m tests.data.worlds.generate`; the output is identical for the same code.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from tools.demo_world.shapes import Grid, at, daily, iso, minute_grid, samples, step

WORLD_DIR = Path(__file__).resolve().parent / "streaming"
NOW = datetime(2027, 3, 14, 16, 30, 0, tzinfo=UTC)
SEED = 314
LEAK_MINUTES_BEFORE = 70  # 15:20: transcoder heap starts climbing
PODS = {
    "ingest-api": ["ingest-api-0", "ingest-api-1"],
    "transcoder": ["transcoder-0", "transcoder-1"],
    "object-store": ["object-store-0"],
}
_HEAP_MAX = 4.0e9


def _series(metric: str, labels: dict[str, str], grid: Grid, values: list[float]) -> dict[str, Any]:
    return {"metric": metric, "labels": labels, "samples": samples(grid, values, digits=2)}


def _heap(rng: np.random.Generator, grid: Grid) -> list[float]:
    """A leak: the heap climbs from the leak start; near the limit the pod is OOM-killed."""
    values = daily(rng, grid, level=1.1e9, amplitude=0.1, peak_hour=19, noise=0.03)
    leak = at(NOW, minutes_before=LEAK_MINUTES_BEFORE)
    heap = 1.1e9
    for i, ts in enumerate(grid):
        if ts < leak:
            continue
        heap += 1.6e8 * (1 + rng.normal(0, 0.05))
        if heap > _HEAP_MAX * 0.97:
            heap = 1.6e9  # restarted, the leak starts over from a warm cache
        values[i] = heap
    return values


def _metrics(rng: np.random.Generator, grid: Grid) -> list[dict[str, Any]]:
    leak = at(NOW, minutes_before=LEAK_MINUTES_BEFORE)
    out: list[dict[str, Any]] = []
    for pod in PODS["transcoder"]:
        labels = {"app": "transcoder", "pod": pod, "cluster": "media-eu1"}
        restarts = [0.0 for _ in grid]
        restarts = step(rng, grid, restarts, start=leak + 1500, target=3, noise=0.0)
        jobs = daily(rng, grid, level=42.0, amplitude=0.3, peak_hour=19, noise=0.06)
        jobs = step(rng, grid, jobs, start=leak + 600, target=9.0, ramp_minutes=10, noise=0.2)
        out += [
            _series("jvm_heap_used_bytes", labels, grid, _heap(rng, grid)),
            _series("jvm_heap_max_bytes", labels, grid, [_HEAP_MAX for _ in grid]),
            _series("kube_pod_container_restarts", labels, grid, restarts),
            _series("transcode_jobs_completed_per_minute", labels, grid, jobs),
        ]
    depth = daily(rng, grid, level=350.0, amplitude=0.4, peak_hour=19, noise=0.1)
    depth = step(rng, grid, depth, start=leak + 600, target=18000.0, ramp_minutes=60, noise=0.03)
    queue = {"app": "ingest-api", "queue": "transcode-jobs", "cluster": "media-eu1"}
    out.append(_series("queue_depth_messages", queue, grid, depth))
    for pod in PODS["ingest-api"]:
        labels = {"app": "ingest-api", "pod": pod, "cluster": "media-eu1"}
        uploads = daily(rng, grid, level=12.0, amplitude=0.4, peak_hour=19, noise=0.08)
        out.append(_series("uploads_accepted_per_second", labels, grid, uploads))
    for pod in PODS["object-store"]:
        labels = {"app": "object-store", "pod": pod, "cluster": "media-eu1"}
        put = daily(rng, grid, level=38.0, amplitude=0.15, peak_hour=19, noise=0.05)
        out.append(_series("object_put_latency_ms", labels, grid, put))
    return out


def _alerts() -> list[dict[str, Any]]:
    def started(minutes: float) -> str:
        return (NOW - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")

    out = [
        {
            "labels": {
                "alertname": "PodOOMKilled",
                "app": "transcoder",
                "pod": pod,
                "severity": "critical",
            },
            "annotations": {"summary": "Container transcoder was OOMKilled and restarted"},
            "startsAt": started(44),
            "status": "firing",
        }
        for pod in PODS["transcoder"]
    ]
    out.append(
        {
            "labels": {
                "alertname": "QueueBacklogGrowing",
                "app": "ingest-api",
                "queue": "transcode-jobs",
                "severity": "warning",
            },
            "annotations": {"description": "transcode-jobs backlog above 5000 messages"},
            "startsAt": started(38),
            "status": "firing",
        }
    )
    return out


def _logs(rng: np.random.Generator) -> list[dict[str, Any]]:
    start, end = (NOW - timedelta(hours=6)).timestamp(), NOW.timestamp()
    leak = NOW.timestamp() - LEAK_MINUTES_BEFORE * 60
    out: list[dict[str, Any]] = []

    def line(ts: float, service: str, level: str, message: str) -> None:
        out.append({"ts": iso(ts), "service": service, "level": level, "message": message})

    ts = start
    while ts < end:
        vid = f"vid_{int(rng.integers(16**9, 16**10)):x}"
        line(ts, "ingest-api", "info", f"accepted upload {vid} size={int(rng.integers(5, 900))}MB")
        line(
            ts + 3,
            "transcoder",
            "info",
            f"job {vid} rendition 1080p finished in {rng.uniform(8, 40):.1f}s",
        )
        line(ts + 4, "object-store", "info", f"PUT bucket=renditions key={vid}/1080p.mp4 200")
        ts += float(rng.uniform(60, 150))
    for pod in PODS["transcoder"]:
        ts = leak + 1200
        while ts < end:
            line(
                ts,
                "transcoder",
                "error",
                f"java.lang.OutOfMemoryError: Java heap space in worker-{int(rng.integers(1, 16))}",
            )
            if rng.random() < 0.3:
                line(
                    ts + 2,
                    "transcoder",
                    "fatal",
                    f"pod {pod} container transcoder terminated: OOMKilled (exit code 137)",
                )
            ts += float(rng.uniform(40, 90))
    ts = leak + 600
    while ts < end:
        depth = int(rng.integers(5000, 18000))
        line(ts, "ingest-api", "warn", f"publish to transcode-jobs delayed: backlog {depth} messages")
        ts += float(rng.uniform(50, 100))
    return sorted(out, key=lambda entry: (entry["ts"], entry["service"], entry["message"]))


_WORLD_YAML = """\
name: streaming
description: >-
  A video platform (ingest-api, transcoder, object-store). The transcoder leaks heap memory from
  15:20 UTC, is OOM-killed and restarts; the transcode-jobs queue backs up behind it.
now: "2027-03-14T16:30:00Z"
"""

_SCENARIOS = """\
- id: uploads-stuck-transcoder-oom
  question: Why are uploaded videos not getting processed?
  expect:
    root_cause_service: transcoder
    category: memory_leak
    keywords_all: [transcoder, OutOfMemoryError]
    evidence_sources: [metrics, logs]
"""


def write_world(target: Path = WORLD_DIR) -> None:
    """Write the whole `streaming` world under `target`."""
    rng = np.random.default_rng(SEED)
    grid = minute_grid(NOW, hours=6)
    target.mkdir(parents=True, exist_ok=True)
    (target / "world.yaml").write_text(_WORLD_YAML)
    (target / "scenarios.yaml").write_text(_SCENARIOS)
    (target / "metrics.json").write_text(json.dumps(_metrics(rng, grid), separators=(",", ":")) + "\n")
    (target / "alerts.json").write_text(json.dumps(_alerts(), indent=1) + "\n")
    logs = _logs(rng)
    (target / "logs.jsonl").write_text("".join(json.dumps(entry) + "\n" for entry in logs))


if __name__ == "__main__":
    write_world()
