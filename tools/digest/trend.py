"""Gradual trends: a series that was flat, then bent sharply into a sustained slope (a disk filling,
a leak, a growing backlog).

The level-shift scan misses these: a steady ramp is its own trend, and a ramp that began early
leaves no flat baseline of the scan's minimum length. Here the level's drift across short windows is
measured in noise units; a trend is a long run of windows all moving one way, after a baseline
whose windows do not move, with a bend at the onset much sharper than a daily curve's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tools.digest.labels import iso_from_unix
from tools.digest.level_shift import Floats, robust_scale
from tools.digest.limits import DigestLimits

# Drift over one window, in noise units, that makes the window "moving".
_MOVING = 4.0
# The run of moving windows is at least this share of the series, and nearly unbroken.
_RUN_SHARE = 0.15
_RUN_FILL = 0.9
# Baseline: at least this share of the series, with at most this share of its windows moving.
_BASELINE_SHARE = 0.1
_BASELINE_MOVING = 0.1
# The slope just after the onset is this many times the slope just before it: a bend, not a curve.
_SHARPNESS = 4.0


def trend_onset(
    times: Floats, values: Floats, *, limits: DigestLimits, floor: float
) -> dict[str, Any] | None:
    """The anomaly fields of a flat-then-sloping series, or None when it is not one."""
    n = len(values)
    width = max(5, n // 24)
    run = max(width, math.ceil(_RUN_SHARE * n))
    if n < max(4 * limits.min_samples, width + run + 2 * width):
        return None
    steps = np.diff(values)
    noise = robust_scale(steps, float(np.median(steps)), floor) / math.sqrt(2)
    # Drift of each window in units of the drift noise alone would give (two noisy ends).
    drift = (values[width:] - values[:-width]) / (noise * math.sqrt(2))
    onset = _first_run(drift, run)
    if onset is None:
        return None
    sign = math.copysign(1.0, float(drift[onset]))
    baseline_end = onset + width // 2  # the window at `onset` straddles the bend
    if baseline_end < max(limits.min_samples, math.ceil(_BASELINE_SHARE * n)):
        return None
    if not _bends_from_flat(drift, onset, width, sign):
        return None
    baseline = float(np.median(values[:baseline_end]))
    tail = values[-max(3, math.ceil(limits.min_recent_share * n)) :]
    recent = float(np.median(tail))
    delta = recent - baseline
    score = abs(delta) / noise
    if delta * sign <= 0 or score < limits.min_gradual_score:
        return None
    if abs(delta) < limits.min_relative_change * max(abs(baseline), noise):
        return None
    moved = values[baseline_end:]
    return {
        "baseline": baseline,
        "recent": recent,
        "peak": float(np.max(moved) if sign > 0 else np.min(moved)),
        "change_at": iso_from_unix(float(times[baseline_end])),
        "direction": "up" if sign > 0 else "down",
        "score": round(min(score, limits.max_score), 2),
    }


def _bends_from_flat(drift: Floats, onset: int, width: int, sign: float) -> bool:
    """Whether the baseline's windows barely move and the slope jumps at the onset.

    A daily curve fails the second test: its slope grows gradually, so the windows just before
    the onset already move almost as much as those just after it.
    """
    settled = drift[: max(1, onset - width)]  # baseline windows that end before the bend
    if np.count_nonzero(np.abs(settled) > _MOVING) > _BASELINE_MOVING * len(settled):
        return False
    before = float(np.median(np.abs(drift[max(0, onset - width) : onset])))
    after = float(np.median(sign * drift[onset : onset + width]))
    return after >= _SHARPNESS * max(before, 1.0)


def _first_run(drift: Floats, run: int) -> int | None:
    """The first window that starts a run of `run` windows nearly all moving the same way."""
    starts = [start for sign in (1.0, -1.0) if (start := _first_run_of(sign, drift, run)) is not None]
    return min(starts) if starts else None


def _first_run_of(sign: float, drift: Floats, run: int) -> int | None:
    moving = sign * drift > _MOVING
    counted = np.concatenate([[0], np.cumsum(moving)])
    filled = counted[run:] - counted[:-run]  # moving windows among each `run` in a row
    starts = np.flatnonzero((filled >= _RUN_FILL * run) & moving[: len(filled)])
    return int(starts[0]) if len(starts) else None
