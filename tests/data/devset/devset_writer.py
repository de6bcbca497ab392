"""A seeded writer for the development-set worlds (issue 22): series with their own noise, events,
alerts in Alertmanager's spelling and log lines with stream labels.

Written apart from tests/data/worlds/world_writer.py on purpose: the development set is meant to look
like telemetry other people wrote, so it shares no helper, name or shape with the evaluation worlds.
Output is byte-identical for the same code (one `random.Random(seed)` per world).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

DEVSET_DIR = Path(__file__).resolve().parent
Values = list[float]


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class DevWorld:
    """One world around a frozen `now`: a one-minute grid over `hours`, and what is written on it."""

    def __init__(self, name: str, now: str, seed: int, description: str, *, hours: float = 3.0) -> None:
        self.name = name
        self.description = description
        self.now = datetime.fromisoformat(now.replace("Z", "+00:00")).astimezone(UTC)
        self.rng = random.Random(seed)
        end = int(self.now.timestamp())
        self.grid = [end - 60 * i for i in range(int(hours * 60), -1, -1)]
        self.series: list[dict[str, Any]] = []
        self.alerts: list[dict[str, Any]] = []
        self.logs: list[dict[str, Any]] = []
        self.scenarios: list[dict[str, Any]] = []
        # Files this world does not have at all (a source that is not configured, not an empty one).
        self.absent: set[str] = set()

    # --- time -------------------------------------------------------------------------------------
    def ago(self, minutes: float) -> datetime:
        return self.now - timedelta(minutes=minutes)

    def _index(self, minutes: float) -> int:
        return max(0, len(self.grid) - 1 - round(minutes))

    # --- series shapes ----------------------------------------------------------------------------
    def level(self, mean: float, *, jitter: float = 0.05, wave: float = 0.0, period: float = 90.0) -> Values:
        """A level with relative Gaussian jitter and an optional slow wave (its own normal variability)."""
        phase = self.rng.uniform(0, 2 * math.pi)
        out: Values = []
        for i in range(len(self.grid)):
            shape = 1 + wave * math.sin(2 * math.pi * i / period + phase)
            out.append(max(0.0, mean * shape * (1 + self.rng.gauss(0, jitter))))
        return out

    def move(
        self,
        values: Values,
        *,
        since: float,
        to: float,
        ramp: float = 4.0,
        jitter: float = 0.04,
        until: float = 0,
    ) -> Values:
        """From `since` minutes ago (until `until` minutes ago) move to `to` over `ramp` minutes."""
        out = list(values)
        start, stop = self._index(since), self._index(until)
        for i in range(start, stop + 1):
            share = min(1.0, (i - start + 1) / max(ramp, 1.0))
            target = to * (1 + self.rng.gauss(0, jitter))
            out[i] = max(0.0, values[i] + (target - values[i]) * share)
        return out

    def climb(
        self, values: Values, *, since: float, to: float, until: float = 0, jitter: float = 0.02
    ) -> Values:
        """A near-linear climb from the value at `since` to `to` at `until` (a leak, a fill, a lag)."""
        out = list(values)
        start, stop = self._index(since), self._index(until)
        origin = values[start]
        for i in range(start, len(out)):
            share = min(1.0, (i - start) / max(stop - start, 1))
            out[i] = max(0.0, (origin + (to - origin) * share) * (1 + self.rng.gauss(0, jitter)))
        return out

    def cumulative(self, rate_per_min: Values) -> Values:
        """A monotonic counter from a per-minute rate."""
        total, out = self.rng.uniform(1e3, 5e4), []
        for rate in rate_per_min:
            total += max(0.0, rate)
            out.append(total)
        return out

    def pin_last(self, values: Values, value: float) -> Values:
        """The newest sample set exactly (a data question asks for it)."""
        return [*values[:-1], value]

    def add(
        self,
        metric: str,
        labels: Mapping[str, str],
        values: Values,
        *,
        digits: int = 3,
        window: tuple[float, float] | None = None,
    ) -> None:
        """A series; `window` (minutes ago from, to) keeps only the samples inside it."""
        samples = []
        for ts, value in zip(self.grid, values, strict=True):
            minutes_ago = (self.grid[-1] - ts) / 60
            if window is None or window[1] <= minutes_ago <= window[0]:
                samples.append([ts, round(value, digits)])
        self.series.append({"metric": metric, "labels": dict(labels), "samples": samples})

    # --- alerts -----------------------------------------------------------------------------------
    def alert(
        self,
        name: str,
        labels: Mapping[str, str],
        since: float,
        *,
        ended: float | None = None,
        silenced: str | None = None,
        expr: str = "",
        **annotations: str,
    ) -> None:
        """An alert that fired `since` minutes ago; `ended` resolves it; `silenced` is a silence comment."""
        entry: dict[str, Any] = {
            "labels": {"alertname": name, **labels},
            "annotations": dict(annotations),
            "startsAt": _stamp(self.ago(since)),
            "status": "firing" if ended is None else "resolved",
        }
        if ended is not None:
            entry["endsAt"] = _stamp(self.ago(ended))
        if silenced:
            entry |= {
                "silenced": True,
                "silenceComment": silenced,
                "silencedUntil": _stamp(self.now + timedelta(hours=6)),
            }
        if expr:
            entry["expr"] = expr
        self.alerts.append(entry)
        # Prometheus keeps ALERTS for as long as the rule fires: the trace a resolved alert leaves.
        alert_labels = {"alertname": name, "alertstate": "firing", **labels}
        self.add("ALERTS", alert_labels, [1.0] * len(self.grid), digits=0, window=(since, ended or 0))

    # --- logs -------------------------------------------------------------------------------------
    def log(self, minutes_ago: float, service: str, level: str, message: str, **labels: str) -> None:
        moment = self.ago(minutes_ago) + timedelta(milliseconds=self.rng.randint(0, 999))
        self.logs.append(
            {
                "ts": moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                "service": service,
                "level": level,
                "message": message,
                **labels,
            }
        )

    def chatter(
        self,
        service: str,
        level: str,
        make: Callable[[random.Random], str],
        *,
        since: float,
        until: float = 0,
        every: float = 2.0,
        tags: Mapping[str, str] | None = None,
        **labels: str,
    ) -> None:
        """A line roughly every `every` minutes between `since` and `until` minutes ago."""
        at = since
        while at > until:
            self.log(at, service, level, make(self.rng), **(dict(tags or {}) | labels))
            at -= every * self.rng.uniform(0.5, 1.5)

    # --- scenarios --------------------------------------------------------------------------------
    def ask(self, scenario_id: str, question: str, *, kind: str, **expect: Any) -> None:
        """A scenario; `kind` is its class in FIRST_TRY.md (kept as `class`, which the loader ignores)."""
        self.scenarios.append({"id": scenario_id, "class": kind, "question": question, "expect": expect})

    def write(self, root: Path = DEVSET_DIR) -> Path:
        folder = root / self.name
        folder.mkdir(parents=True, exist_ok=True)
        info = {"name": self.name, "description": self.description, "now": _stamp(self.now)}
        (folder / "world.yaml").write_text(yaml.safe_dump(info, sort_keys=False, width=110))
        ordered = sorted(self.logs, key=lambda line: line["ts"])
        files = {
            "alerts.json": json.dumps(self.alerts, indent=1) + "\n",
            "metrics.json": json.dumps(self.series, separators=(",", ":")) + "\n",
            "logs.jsonl": "".join(json.dumps(line) + "\n" for line in ordered),
        }
        for file, text in files.items():
            if file not in self.absent:
                (folder / file).write_text(text)
        text = yaml.safe_dump(self.scenarios, sort_keys=False, width=110, allow_unicode=True)
        (folder / "scenarios.yaml").write_text(text)
        return folder


def pick(options: Sequence[str]) -> Callable[[random.Random], str]:
    """A line maker choosing one of `options`, each formatted with a random request id and duration."""

    def make(rng: random.Random) -> str:
        return rng.choice(options).format(rid=f"{rng.getrandbits(32):08x}", ms=rng.randint(3, 180))

    return make
