"""A world labelled as real exporters label it: a host whose /data filesystem fills, its CPU counter,
an HTTP histogram, Alertmanager's own counter racing, rules with real expressions, metadata, and
two scrape targets (`world` up, `ghost` down). Relative to `now`, so a real Prometheus serves it too."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tests.support.world_builder import write_world

HOST = "db1:9100"
FS_ALERT = "HostFilesystemAlmostFull"
FS_EXPR = (
    'node_filesystem_avail_bytes{mountpoint="/data"} / node_filesystem_size_bytes{mountpoint="/data"}'
    " * 100 < 10"
)
FS_LABELS = {"job": "node", "instance": HOST, "mountpoint": "/data", "device": "sdb1"}
QUIET_ALERT = "HostHighCpuLoad"
QUIET_EXPR = 'sum by (instance) (rate(node_cpu_seconds_total{mode="user"}[1m])) > 100'
METADATA = {
    "node_filesystem_avail_bytes": {"type": "gauge", "help": "Filesystem space available.", "unit": ""},
    "node_cpu_seconds_total": {"type": "counter", "help": "Seconds the CPUs spent in each mode.", "unit": ""},
    "http_request_duration_seconds": {"type": "histogram", "help": "Request latency.", "unit": ""},
}
BUCKETS = ("0.1", "0.5", "+Inf")


@dataclass(frozen=True, slots=True)
class ExporterWorld:
    path: Path
    now: datetime
    exporter: str  # host:port of the `world` scrape target
    ghost: str  # host:port of the `ghost` target, where nothing listens


RESTARTED_AT = 40  # minute of the world's hour at whose half the `kv` process started again


def build_exporter_world(directory: Path, now: datetime, *, exporter: str, ghost: str) -> ExporterWorld:
    start = now - timedelta(minutes=60)
    stamps = [(start + timedelta(minutes=m)).timestamp() for m in range(61)]
    fill = [100e9 - (m * 1.6e9 if m > 30 else 0.0) for m in range(61)]  # 100 GB, below 10 % by now
    host = {"job": "node", "instance": HOST}
    series: list[dict[str, Any]] = [
        _series("node_filesystem_avail_bytes", FS_LABELS, stamps, fill),
        _series("node_filesystem_size_bytes", FS_LABELS, stamps, 100e9),
        _series(
            "node_cpu_seconds_total",
            {**host, "cpu": "0", "mode": "user"},
            stamps,
            [m * 30.0 for m in range(61)],
        ),
        _series("go_goroutines", host, stamps, 12.0),
        _series(
            "alertmanager_alerts_received_total",
            {"job": "alertmanager", "instance": "127.0.0.1:9093"},
            stamps,
            [m * 50.0 for m in range(61)],
        ),
        *(
            _series(
                "http_request_duration_seconds_bucket",
                {"job": "checkout", "instance": "app1:8000", "le": le},
                stamps,
                [m * share for m in range(61)],
            )
            for le, share in zip(BUCKETS, (6.0, 9.0, 10.0), strict=True)
        ),
        # A process that restarted 20 minutes ago, seen only in how long it has been up.
        _series(
            "kv_uptime_seconds",
            {"job": "kv", "instance": "kv-1:9121"},
            stamps,
            [86_400.0 + m * 60 if m < RESTARTED_AT else (m - RESTARTED_AT) * 60 + 30.0 for m in range(61)],
        ),
        _series("up", {"job": "world", "instance": exporter}, stamps, 1.0),
        _series("up", {"job": "ghost", "instance": ghost}, stamps, 0.0),
    ]
    alerts = [
        {
            # What the rule's expression yields on the real server: the series' labels, no name.
            "labels": {"alertname": FS_ALERT, **FS_LABELS, "severity": "critical"},
            "annotations": {"summary": "/data is almost full"},
            "startsAt": (now - timedelta(minutes=5)).isoformat(),
            "expr": FS_EXPR,
        },
        {
            "labels": {"alertname": QUIET_ALERT, "instance": HOST, "severity": "warning"},
            "status": "resolved",
            "expr": QUIET_EXPR,
        },
    ]
    path = write_world(directory, name="exporters", now=now, alerts=alerts, series=series)
    (path / "metadata.json").write_text(json.dumps(METADATA), encoding="utf-8")
    return ExporterWorld(path, now, exporter, ghost)


def exposition(metadata: dict[str, dict[str, str]]) -> str:
    """Prometheus text exposition declaring each family once, with one sample, so a scrape records
    the metadata (backfilled blocks carry none)."""
    lines: list[str] = []
    for family, meta in sorted(metadata.items()):
        lines += [f"# HELP {family} {meta['help']}", f"# TYPE {family} {meta['type']}"]
        if meta["type"] == "histogram":
            lines += [f'{family}_bucket{{le="+Inf"}} 1', f"{family}_sum 0.2", f"{family}_count 1"]
        else:
            lines.append(f"{family} 1")
    return "\n".join(lines) + "\n"


def _series(metric: str, labels: dict[str, str], stamps: list[float], values: Any) -> dict[str, Any]:
    points = values if isinstance(values, list) else [values] * len(stamps)
    return {
        "metric": metric,
        "labels": labels,
        "samples": [[t, v] for t, v in zip(stamps, points, strict=True)],
    }
