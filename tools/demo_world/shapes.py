"""Signal shapes for synthetic worlds: a minute grid, a daily curve with noise, and steps that ramp in.

Seeded and deterministic; used by the demo world generator and by test-world generators.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

Grid = list[int]


def minute_grid(now: datetime, *, hours: float, step_s: int = 60) -> Grid:
    """Unix seconds of every step in the `hours` before `now`, ending exactly at `now`."""
    end = int(now.timestamp())
    count = int(hours * 3600 // step_s)
    return [end - step_s * i for i in range(count - 1, -1, -1)]


def at(now: datetime, *, minutes_before: float) -> int:
    """Unix seconds `minutes_before` now."""
    return int((now - timedelta(minutes=minutes_before)).timestamp())


def daily(
    rng: np.random.Generator,
    grid: Grid,
    *,
    level: float,
    amplitude: float = 0.0,
    peak_hour: float = 14.0,
    noise: float = 0.03,
    floor: float = 0.0,
) -> list[float]:
    """`level` shaped by a 24 h cosine peaking at `peak_hour` UTC, with relative Gaussian noise."""
    values = []
    for ts in grid:
        hour = datetime.fromtimestamp(ts, tz=UTC)
        h = hour.hour + hour.minute / 60
        shaped = level * (1 + amplitude * math.cos(2 * math.pi * (h - peak_hour) / 24))
        values.append(max(floor, shaped * (1 + rng.normal(0.0, noise))))
    return values


def step(
    rng: np.random.Generator,
    grid: Grid,
    values: Sequence[float],
    *,
    start: int,
    target: float,
    ramp_minutes: float = 1.0,
    noise: float = 0.03,
    ceiling: float | None = None,
) -> list[float]:
    """From `start` on, move to `target` (linearly over `ramp_minutes`) and stay there, noisy."""
    out = list(values)
    for i, ts in enumerate(grid):
        if ts < start:
            continue
        progress = min(1.0, ((ts - start) / 60 + 1) / max(ramp_minutes, 1.0))
        value = out[i] + (target - out[i]) * progress
        value *= 1 + rng.normal(0.0, noise)
        out[i] = min(value, ceiling) if ceiling is not None else value
    return out


def samples(grid: Grid, values: Sequence[float], *, digits: int = 4) -> list[list[float]]:
    """`[[unix_seconds, value], ...]` as the world format stores them."""
    return [[ts, round(v, digits)] for ts, v in zip(grid, values, strict=True)]


def iso(ts: float) -> str:
    """ISO-8601 UTC with a trailing Z, millisecond precision (the log spelling)."""
    moment = datetime.fromtimestamp(ts, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
