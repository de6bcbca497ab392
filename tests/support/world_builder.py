"""World directories for tests: a generic writer and the small world the contract suites share.

The contract world has two services, `ledger` (degrading: a latency and error step change half an
hour before `now`, a three-instance alert, timeout errors in its logs) and `relay` (healthy, one
warning alert). All timestamps are relative to `now`, so the real Prometheus can serve it too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

SAMPLE_INTERVAL_S = 60
HISTORY = timedelta(hours=3)
CHANGE_BEFORE_NOW = timedelta(minutes=30)
LATENCY_BEFORE, LATENCY_AFTER = 0.12, 1.8
ERRORS_BEFORE, ERRORS_AFTER = 0.01, 0.25
LATENCY_ALERT = "LedgerLatencyHigh"
LATENCY_ALERT_INSTANCES = ("ledger-1", "ledger-2", "ledger-3")
FATAL_LINE = "relay worker pool exhausted, exiting"
TIMEOUT_PHRASE = "timed out after 3000 ms"


@dataclass(frozen=True, slots=True)
class ContractWorld:
    """Where the contract world was written and the instant it is frozen at."""

    path: Path
    now: datetime

    @property
    def change_at(self) -> datetime:
        return self.now - CHANGE_BEFORE_NOW


def write_world(
    directory: Path,
    *,
    name: str,
    now: datetime,
    description: str = "",
    alerts: Iterable[Mapping[str, Any]] | None = None,
    series: Iterable[Mapping[str, Any]] | None = None,
    logs: Iterable[Mapping[str, Any]] | None = None,
    scenarios: Iterable[Mapping[str, Any]] | None = None,
) -> Path:
    """Write the given parts in the world format; a part left as None is not written at all."""
    directory.mkdir(parents=True, exist_ok=True)
    info = {"name": name, "description": description, "now": _iso(now)}
    (directory / "world.yaml").write_text(yaml.safe_dump(info), encoding="utf-8")
    if alerts is not None:
        (directory / "alerts.json").write_text(json.dumps(list(alerts)), encoding="utf-8")
    if series is not None:
        (directory / "metrics.json").write_text(json.dumps(list(series)), encoding="utf-8")
    if logs is not None:
        text = "".join(json.dumps(line) + "\n" for line in logs)
        (directory / "logs.jsonl").write_text(text, encoding="utf-8")
    if scenarios is not None:
        (directory / "scenarios.yaml").write_text(yaml.safe_dump(list(scenarios)), encoding="utf-8")
    return directory


def build_contract_world(directory: Path, now: datetime) -> ContractWorld:
    """Write the contract world frozen at `now` (floored to the minute, so samples align)."""
    now = now.astimezone(UTC).replace(second=0, microsecond=0)
    world = ContractWorld(path=directory, now=now)
    write_world(
        directory,
        name="contract",
        now=now,
        description="two services; ledger degrades half an hour before now",
        alerts=_alerts(world),
        series=_series(world),
        logs=_logs(world),
    )
    return world


def _alerts(world: ContractWorld) -> list[dict[str, Any]]:
    latency = [
        {
            "labels": {
                "alertname": LATENCY_ALERT,
                "service": "ledger",
                "severity": "critical",
                "instance": instance,
            },
            "annotations": {"summary": f"p99 latency above 1s on {instance}"},
            "startsAt": _iso(world.change_at + timedelta(minutes=5)),
            "status": "firing",
        }
        for instance in LATENCY_ALERT_INSTANCES
    ]
    backlog = {
        "labels": {"alertname": "RelayQueueBacklog", "service": "relay", "severity": "warning"},
        "annotations": {"summary": "queue depth growing"},
        "startsAt": _iso(world.now - timedelta(minutes=10)),
        "status": "firing",
    }
    resolved = {
        "labels": {"alertname": "RelayRestarted", "service": "relay", "severity": "info"},
        "annotations": {"summary": "relay restarted"},
        "startsAt": _iso(world.now - timedelta(hours=2)),
        "endsAt": _iso(world.now - timedelta(minutes=90)),
        "status": "resolved",
    }
    return [*latency, backlog, resolved]


def _series(world: ContractWorld) -> list[dict[str, Any]]:
    start = world.now - HISTORY
    stamps = [
        start.timestamp() + offset for offset in range(0, int(HISTORY.total_seconds()) + 1, SAMPLE_INTERVAL_S)
    ]
    change = world.change_at.timestamp()

    def stepped(before: float, after: float) -> list[list[float]]:
        return [[ts, before if ts < change else after] for ts in stamps]

    def flat(value: float) -> list[list[float]]:
        return [[ts, value] for ts in stamps]

    return [
        {
            "metric": "app_request_latency_seconds",
            "labels": {"service": "ledger", "quantile": "0.99"},
            "samples": stepped(LATENCY_BEFORE, LATENCY_AFTER),
        },
        {
            "metric": "app_request_errors_ratio",
            "labels": {"service": "ledger"},
            "samples": stepped(ERRORS_BEFORE, ERRORS_AFTER),
        },
        {
            "metric": "app_request_latency_seconds",
            "labels": {"service": "relay", "quantile": "0.99"},
            "samples": flat(0.05),
        },
        {
            "metric": "app_queue_depth",
            "labels": {"service": "relay", "pool": "main"},
            "samples": flat(3.0),
        },
    ]


def _logs(world: ContractWorld) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for minute in range(90, 0, -1):
        at = world.now - timedelta(minutes=minute)
        shard = minute % 8
        lines.append(_line(at, "ledger", "info", f"ledger write ok shard={shard}", host="ledger-1"))
        if at >= world.change_at:
            lines.append(
                _line(
                    at + timedelta(seconds=20),
                    "ledger",
                    "error",
                    f"ledger write {TIMEOUT_PHRASE} shard={shard}",
                    host="ledger-2",
                )
            )
        if minute % 2 == 0:
            lines.append(
                _line(
                    at + timedelta(seconds=40),
                    "relay",
                    "info",
                    f"relay forwarded batch size={minute}",
                    host="relay-1",
                )
            )
        if minute % 5 == 0:
            # An access log record: a 503 every ten minutes, a 200 between (status-class filters).
            status = 503 if minute % 10 == 0 else 200
            record = f'10.0.0.7 - - "POST /v1/batch HTTP/1.1" {status} 0 "-" "relay-client/2.1"'
            lines.append(_line(at + timedelta(seconds=45), "relay", "info", record, host="relay-1"))
        if minute == 30:  # one line worse than an error: an error read takes it too
            lines.append(_line(at + timedelta(seconds=55), "relay", "fatal", FATAL_LINE, host="relay-1"))
        if minute % 15 == 0:
            lines.append(
                _line(
                    at + timedelta(seconds=50),
                    "relay",
                    "warn",
                    "relay retrying upstream connect",
                    host="relay-1",
                )
            )
    return lines


def _line(at: datetime, service: str, level: str, message: str, **fields: Any) -> dict[str, Any]:
    # `context` is not a scalar, so it never becomes a stream label.
    return {
        "ts": _iso(at),
        "service": service,
        "level": level,
        "message": message,
        "context": {"thread": "main"},
        **fields,
    }


def _iso(instant: datetime) -> str:
    return instant.astimezone(UTC).isoformat().replace("+00:00", "Z")
