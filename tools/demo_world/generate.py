"""Regenerates the demo world's telemetry (metrics, alerts, logs, orders SQL) from a fixed seed.

Run `python -m tools.demo_world.generate` after changing the story; the output is byte-identical
for the same code. The story: at 09:22 payment v2.4.1 is deployed; from 09:25 its transactions
stay open, the HikariPool-1 connection pool is exhausted and payment times out, which makes
checkout and the gateway slow. A nightly report-batch job has been burning CPU since 02:00
(the red herring).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from tools.demo_world import DEMO_WORLD_DIR
from tools.demo_world.demo_logs import demo_logs
from tools.demo_world.demo_sql import orders_sql
from tools.demo_world.shapes import Grid, at, daily, minute_grid, samples, step

NOW = datetime(2026, 11, 30, 10, 0, 0, tzinfo=UTC)
SEED = 20261130
INCIDENT_MINUTES_BEFORE = 35  # 09:25
DEPLOY_MINUTES_BEFORE = 38  # 09:22

INSTANCES: dict[str, list[str]] = {
    "gateway": ["gateway-5c9d7b-7xk2p", "gateway-5c9d7b-q8m4n"],
    "checkout": ["checkout-7f4b6c-2hj9d", "checkout-7f4b6c-v5t3w"],
    "payment": ["payment-6d8f9a-x2k4p", "payment-6d8f9a-m7r2c", "payment-6d8f9a-c9w5z"],
    "inventory": ["inventory-84c2d1-b6n8f", "inventory-84c2d1-k3p7s"],
}
BATCH_INSTANCE = "report-batch-28d41-jx7lq"
# service -> (requests/s per instance, p99 seconds, errors/s, cpu ratio)
_BASELINES: dict[str, tuple[float, float, float, float]] = {
    "gateway": (62.0, 0.42, 0.04, 0.28),
    "checkout": (21.0, 0.31, 0.012, 0.33),
    "payment": (18.0, 0.19, 0.01, 0.24),
    "inventory": (41.0, 0.06, 0.008, 0.21),
}
# service -> (pool max, typical active)
_POOLS: dict[str, tuple[int, float]] = {
    "checkout": (30, 7.0),
    "payment": (20, 5.0),
    "inventory": (25, 6.0),
}
# Each hop downstream of payment feels it a minute later (the timing a diagnosis reads).
_EFFECT_DELAY = {"payment": 0, "checkout": 1, "gateway": 2}


def _series(metric: str, labels: dict[str, str], grid: Grid, values: list[float]) -> dict[str, Any]:
    return {"metric": metric, "labels": labels, "samples": samples(grid, values)}


def _red_metrics(rng: np.random.Generator, grid: Grid) -> list[dict[str, Any]]:
    """Rate, errors, duration (and CPU) per instance; payment and its callers degrade."""
    out: list[dict[str, Any]] = []
    for service, instances in INSTANCES.items():
        rps, p99, errors, cpu = _BASELINES[service]
        for instance in instances:
            labels = {"service": service, "instance": instance, "namespace": "shop"}
            traffic = daily(rng, grid, level=rps, amplitude=0.35, peak_hour=13, noise=0.04)
            latency = daily(rng, grid, level=p99, amplitude=0.12, peak_hour=13, noise=0.06)
            failures = daily(rng, grid, level=errors, amplitude=0.2, noise=0.5)
            usage = daily(rng, grid, level=cpu, amplitude=0.25, peak_hour=13, noise=0.05)
            if service in _EFFECT_DELAY:
                start = at(NOW, minutes_before=INCIDENT_MINUTES_BEFORE - _EFFECT_DELAY[service])
                timeout = {"payment": 30.0, "checkout": 5.01, "gateway": 5.03}[service]
                error_rate = {"payment": 6.4, "checkout": 3.1, "gateway": 2.9}[service]
                latency = step(
                    rng,
                    grid,
                    latency,
                    start=start,
                    target=timeout,
                    ramp_minutes=3,
                    noise=0.01,
                    ceiling=timeout,
                )
                failures = step(rng, grid, failures, start=start, target=error_rate, ramp_minutes=3)
            out += [
                _series("http_requests_per_second", labels, grid, traffic),
                _series("http_request_duration_seconds_p99", labels, grid, latency),
                _series("http_errors_per_second", labels, grid, failures),
                _series("process_cpu_usage_ratio", labels, grid, usage),
            ]
    batch = {"service": "report-batch", "instance": BATCH_INSTANCE, "namespace": "batch"}
    batch_cpu = [min(v, 0.99) for v in daily(rng, grid, level=0.94, noise=0.02)]
    out.append(_series("process_cpu_usage_ratio", batch, grid, batch_cpu))
    return out


def _pool_metrics(rng: np.random.Generator, grid: Grid) -> list[dict[str, Any]]:
    """Connection pools: payment's pool pins at its maximum with threads queueing for it."""
    out: list[dict[str, Any]] = []
    start = at(NOW, minutes_before=INCIDENT_MINUTES_BEFORE)
    for service, (size, typical) in _POOLS.items():
        for instance in INSTANCES[service]:
            labels = {"service": service, "instance": instance, "pool": "HikariPool-1"}
            active = daily(rng, grid, level=typical, amplitude=0.3, peak_hour=13, noise=0.15)
            pending = [0.0 for _ in grid]
            if service == "payment":
                active = step(
                    rng,
                    grid,
                    active,
                    start=start,
                    target=size,
                    ramp_minutes=2,
                    noise=0.0,
                    ceiling=size,
                )
                pending = step(rng, grid, pending, start=start, target=38, ramp_minutes=4, noise=0.15)
            out += [
                _series("db_pool_connections_active", labels, grid, [round(v) for v in active]),
                _series("db_pool_connections_max", labels, grid, [float(size) for _ in grid]),
                _series("db_pool_pending_threads", labels, grid, [round(v) for v in pending]),
            ]
    return out


def _database_metrics(rng: np.random.Generator, grid: Grid) -> list[dict[str, Any]]:
    """The orders database's sessions by state: idle-in-transaction sessions pile up."""
    start = at(NOW, minutes_before=INCIDENT_MINUTES_BEFORE)
    labels = {"service": "orders-db", "instance": "orders-db-0", "datname": "orders"}
    states = {
        "active": (6.0, 4.0),
        "idle": (21.0, 3.0),
        "idle in transaction": (1.0, 58.0),
    }
    out = []
    for state, (typical, incident) in states.items():
        values = daily(rng, grid, level=typical, amplitude=0.3, peak_hour=13, noise=0.2)
        values = step(rng, grid, values, start=start, target=incident, ramp_minutes=4, noise=0.05)
        series_labels = labels | {"state": state}
        out.append(_series("pg_stat_activity_count", series_labels, grid, [round(v) for v in values]))
    return out


def _build_info(grid: Grid) -> list[dict[str, Any]]:
    """`*_build_info`-style series: payment's version changes at the deploy."""
    deploy = at(NOW, minutes_before=DEPLOY_MINUTES_BEFORE)
    versions = {"gateway": "1.19.3", "checkout": "3.8.0", "inventory": "2.2.7"}
    out = [
        _series("app_build_info", {"service": s, "version": v}, grid, [1.0 for _ in grid])
        for s, v in versions.items()
    ]
    before = [ts for ts in grid if ts < deploy]
    after = [ts for ts in grid if ts >= deploy]
    out.append(
        _series(
            "app_build_info",
            {"service": "payment", "version": "2.4.0"},
            before,
            [1.0 for _ in before],
        )
    )
    out.append(
        _series(
            "app_build_info",
            {"service": "payment", "version": "2.4.1"},
            after,
            [1.0 for _ in after],
        )
    )
    return out


def _alert(name: str, labels: dict[str, str], minutes_before: float, **annotations: str) -> dict[str, Any]:
    start = at(NOW, minutes_before=minutes_before)
    return {
        "labels": {"alertname": name, **labels},
        "annotations": annotations,
        "startsAt": datetime.fromtimestamp(start, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "endsAt": None,
        "status": "firing",
    }


def demo_alerts() -> list[dict[str, Any]]:
    """Firing alerts at NOW: payment's errors, latency and pool; checkout latency; batch CPU."""
    out: list[dict[str, Any]] = []
    for i, instance in enumerate(INSTANCES["payment"]):
        labels = {"service": "payment", "instance": instance, "namespace": "shop"}
        out.append(
            _alert(
                "DBConnectionPoolSaturated",
                labels | {"pool": "HikariPool-1", "severity": "critical"},
                33 - i * 0.25,
                summary="Connection pool HikariPool-1 is saturated",
                description=f"HikariPool-1 on {instance}: 20/20 connections busy, threads waiting.",
            )
        )
        out.append(
            _alert(
                "HighErrorRate",
                labels | {"severity": "critical"},
                32 - i * 0.25,
                summary="payment 5xx error rate above 5% for 2 minutes",
                description=f"{instance} is answering more than 5% of requests with 5xx.",
            )
        )
        out.append(
            _alert(
                "HighLatencyP99",
                labels | {"severity": "warning"},
                31 - i * 0.25,
                summary="payment p99 latency above 1s for 3 minutes",
                description=f"p99 request latency on {instance} is above 1s.",
            )
        )
    for instance in INSTANCES["checkout"]:
        labels = {
            "service": "checkout",
            "instance": instance,
            "namespace": "shop",
            "severity": "warning",
        }
        out.append(
            _alert(
                "HighLatencyP99",
                labels,
                29,
                summary="checkout p99 latency above 1s for 3 minutes",
                description=f"p99 request latency on {instance} is above 1s.",
            )
        )
    batch = {
        "service": "report-batch",
        "instance": BATCH_INSTANCE,
        "job": "report-batch",
        "namespace": "batch",
        "severity": "warning",
    }
    out.append(
        _alert(
            "HighCPUUsage",
            batch,
            473,
            summary="CPU usage above 90% for 15 minutes",
            description="report-batch nightly sales report above 90% CPU for 15 minutes.",
        )
    )
    resolved = _alert(
        "DiskSpaceLow",
        {
            "service": "inventory",
            "instance": INSTANCES["inventory"][0],
            "namespace": "shop",
            "severity": "warning",
        },
        290,
        summary="Disk usage above 85% on /var/lib/inventory-cache",
    )
    resolved["status"] = "resolved"
    resolved["endsAt"] = datetime.fromtimestamp(at(NOW, minutes_before=262), tz=UTC).strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )
    return [*out, resolved]


def write_world(target: Path = DEMO_WORLD_DIR) -> None:
    """Write metrics.json, alerts.json, logs.jsonl and sql/orders.sql under `target`."""
    rng = np.random.default_rng(SEED)
    grid = minute_grid(NOW, hours=6)
    metrics = _red_metrics(rng, grid) + _pool_metrics(rng, grid) + _database_metrics(rng, grid)
    metrics += _build_info(grid)
    (target / "metrics.json").write_text(json.dumps(metrics, separators=(",", ":")) + "\n")
    (target / "alerts.json").write_text(json.dumps(demo_alerts(), indent=1) + "\n")
    lines = demo_logs(rng, NOW, instances=INSTANCES, batch_instance=BATCH_INSTANCE)
    (target / "logs.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (target / "sql").mkdir(exist_ok=True)
    (target / "sql" / "orders.sql").write_text(orders_sql(rng, NOW))


if __name__ == "__main__":
    write_world()
