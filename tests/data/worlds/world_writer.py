"""A small seeded writer for evaluation worlds: series with daily shape and noise, alerts, log lines.

Shared by the scenario-world generators beside it; output is byte-identical for the same code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from tools.demo_world.shapes import at, daily, iso, minute_grid, samples, step

WORLDS_DIR = Path(__file__).resolve().parent


class WorldWriter:
    """Collects one world's telemetry around a frozen `now`, then writes it in the world format."""

    def __init__(self, name: str, now: datetime, seed: int, *, hours: float = 4.0) -> None:
        self.name = name
        self.now = now
        self.rng = np.random.default_rng(seed)
        self.grid = minute_grid(now, hours=hours, step_s=60)
        self.hours = hours
        self.series: list[dict[str, Any]] = []
        self.alerts: list[dict[str, Any]] = []
        self.logs: list[dict[str, Any]] = []

    def minutes_ago(self, minutes: float) -> int:
        return at(self.now, minutes_before=minutes)

    def baseline(self, level: float, *, amplitude: float = 0.25, noise: float = 0.05) -> list[float]:
        """A business-hours curve (peak 14:00 UTC) with relative noise."""
        return daily(self.rng, self.grid, level=level, amplitude=amplitude, noise=noise)

    def shift(
        self,
        values: list[float],
        *,
        minutes_ago: float,
        target: float,
        ramp: float = 3.0,
        noise: float = 0.04,
        ceiling: float | None = None,
    ) -> list[float]:
        """From `minutes_ago` on, move to `target` over `ramp` minutes and stay there."""
        start = self.minutes_ago(minutes_ago)
        return step(
            self.rng,
            self.grid,
            values,
            start=start,
            target=target,
            ramp_minutes=ramp,
            noise=noise,
            ceiling=ceiling,
        )

    def add_series(
        self, metric: str, labels: Mapping[str, str], values: list[float], digits: int = 3
    ) -> None:
        self.series.append(
            {"metric": metric, "labels": dict(labels), "samples": samples(self.grid, values, digits=digits)}
        )

    def alert(self, name: str, labels: Mapping[str, str], minutes_ago: float, **annotations: str) -> None:
        started = datetime.fromtimestamp(self.minutes_ago(minutes_ago), tz=UTC)
        self.alerts.append(
            {
                "labels": {"alertname": name, **labels},
                "annotations": annotations,
                "startsAt": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "status": "firing",
            }
        )

    def resolved_alert(
        self, name: str, labels: Mapping[str, str], started_ago: float, ended_ago: float, **annotations: str
    ) -> None:
        self.alert(name, labels, started_ago, **annotations)
        ended = datetime.fromtimestamp(self.minutes_ago(ended_ago), tz=UTC)
        self.alerts[-1] |= {"endsAt": ended.strftime("%Y-%m-%dT%H:%M:%SZ"), "status": "resolved"}

    def log(self, ts: float, service: str, level: str, message: str, **fields: str) -> None:
        self.logs.append({"ts": iso(ts), "service": service, "level": level, "message": message, **fields})

    def every(
        self,
        service: str,
        level: str,
        message: Callable[[np.random.Generator], str],
        *,
        since_ago: float,
        until_ago: float = 0.0,
        gap_s: tuple[float, float] = (60.0, 180.0),
        **fields: str,
    ) -> None:
        """Emit `message(rng)` from `since_ago` to `until_ago` minutes before now, at random gaps."""
        ts = float(self.minutes_ago(since_ago)) + float(self.rng.uniform(0, gap_s[0]))
        end = float(self.minutes_ago(until_ago))
        while ts < end:
            self.log(ts, service, level, message(self.rng), **fields)
            ts += float(self.rng.uniform(*gap_s))

    def write(
        self,
        *,
        description: str,
        scenarios: str,
        docs: Mapping[str, str] | None = None,
        sql: Mapping[str, str] | None = None,
        metrics: bool = True,
    ) -> Path:
        """Write the world under WORLDS_DIR/name; `metrics=False` leaves metrics.json out on purpose."""
        target = WORLDS_DIR / self.name
        target.mkdir(parents=True, exist_ok=True)
        info = {
            "name": self.name,
            "description": " ".join(description.split()),
            "now": self.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        (target / "world.yaml").write_text(
            "".join(f"{key}: {json.dumps(value)}\n" for key, value in info.items())
        )
        (target / "scenarios.yaml").write_text(scenarios)
        if metrics:
            (target / "metrics.json").write_text(json.dumps(self.series, separators=(",", ":")) + "\n")
        (target / "alerts.json").write_text(json.dumps(self.alerts, indent=1) + "\n")
        ordered = sorted(self.logs, key=lambda line: (line["ts"], line["service"], line["message"]))
        (target / "logs.jsonl").write_text("".join(json.dumps(line) + "\n" for line in ordered))
        for folder, files in (("docs", docs or {}), ("sql", sql or {})):
            if files:
                (target / folder).mkdir(exist_ok=True)
            for file, text in files.items():
                (target / folder / file).write_text(text)
        return target
