"""One series' level shift: a robust baseline-versus-recent shift, with when it began.

For every split point the series is cut into a baseline (before) and a recent segment (after, to the
end). The split where the medians differ most, measured in baseline MADs, is the candidate change.
It is kept only if it also stands out against the baseline's own trend (so a daily ramp is not an
incident), persists to the end of the series, and changes the level by a meaningful share. Nothing
assumes what a metric means: direction, size and timing are all the digest says.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tools.digest.labels import iso_from_unix, parse_instant
from tools.digest.level_shift import TINY, Floats, Shift, best_shift_among, robust_scale
from tools.digest.limits import DigestLimits
from tools.digest.trend import trend_onset

_MAGNITUDE_FLOOR = 0.001  # of the largest magnitude the series reached
# Deviation (in baseline MADs) that counts a single sample as part of the change.
_SAMPLE_DEVIATION = 3.0
_RATIO_WHEN_BASELINE_ZERO = 1e6
# Below this share of the shift happening at once, a change is gradual (a ramp, a leak, a curve).
_ABRUPT = 0.5
# How far toward the new level a baseline sample must be to count as having been there before.
_SEEN_SHARE = 0.8
# A baseline beyond the new level for at least this share of the recent part's share of time keeps
# the same rhythm (recurring bursts), not a shift.
_RHYTHM_SHARE = 2.0
# A move whose series has stood this close to its baseline (a share of the way to its peak) for
# this long is over.
_BACK_SHARE = 0.2
_ENDED_FOR_S = 600.0


def series_anomaly(times: Floats, values: Floats, *, limits: DigestLimits) -> dict[str, Any] | None:
    if len(values) < limits.min_samples:
        return None
    floor = _MAGNITUDE_FLOOR * float(np.max(np.abs(values)))
    found = _level_shift(times, values, limits=limits, floor=floor)
    if found is None:
        found = trend_onset(times, values, limits=limits, floor=floor)
        if found is not None and _recurs(times, values, found):
            return None  # a climb the series has made before, as far and as long: its own rhythm
    if found is None:
        return None
    found |= _ended(times, values, found)
    return {
        **found,
        "baseline": rounded(found["baseline"]),
        "recent": rounded(found["recent"]),
        "peak": rounded(found["peak"]),
        "ratio": rounded(ratio(found["recent"], found["baseline"])),
    }


def _level_shift(
    times: Floats, values: Floats, *, limits: DigestLimits, floor: float
) -> dict[str, Any] | None:
    shift = _best_shift(values, limits=limits, floor=floor)
    if shift is None or shift.level_score < limits.min_score:
        return None
    shift = _anchored(values, shift, limits=limits, floor=floor)
    after = values[shift.split :]
    recent = float(np.median(after))
    delta = recent - shift.baseline
    trend = _baseline_trend(times, values, shift, floor=floor)
    trend_score = float(np.median(trend.residuals(times[shift.split :], after))) / trend.scale
    if trend_score * math.copysign(1.0, delta) < limits.min_score:
        return None  # explained by the baseline's own trend (a daily ramp), or opposite to it
    if abs(delta) < limits.min_relative_change * max(abs(shift.baseline), shift.scale):
        return None
    level = shift.baseline + _SEEN_SHARE * delta
    if _seen_before(times, values, shift.split, level, delta) or _same_rhythm(
        times, values, shift.split, level, delta
    ):
        return None  # the series has been this far out before, for as long: its own normal range
    direction = "up" if delta > 0 else "down"
    start = _change_start(times, values, shift.split, trend, direction)
    score = min(shift.level_score, abs(trend_score), limits.max_score)
    if score < limits.min_score:
        return None
    if _abruptness(values, start, delta) < _ABRUPT and score < limits.min_gradual_score:
        return None  # a slow drift of modest size: as likely a daily curve as an incident
    return {
        "baseline": shift.baseline,
        "recent": recent,
        "peak": float(np.max(after) if direction == "up" else np.min(after)),
        "change_at": iso_from_unix(float(times[start])),
        "direction": direction,
        "score": round(score, 2),
    }


def _ended(times: Floats, values: Floats, found: Mapping[str, Any]) -> dict[str, Any]:
    """The move's end, when the series has been back near its baseline for the newest stretch (at
    least ENDED_FOR and a few samples): a backlog that filled and drained, a spike over. The median
    of everything since the change still sits high then; the series' present does not."""
    moment = parse_instant(found.get("change_at"))
    if moment is None:
        return {}
    baseline, peak = float(found["baseline"]), float(found["peak"])
    near = np.abs(values - baseline) <= _BACK_SHARE * abs(peak - baseline)
    since = len(values)
    while since > 0 and near[since - 1]:
        since -= 1
    if since >= len(values) - 2 or times[since] <= moment.timestamp():
        return {}
    if times[-1] - times[since] < _ENDED_FOR_S:
        return {}
    return {
        "recent": float(np.median(values[since:])),
        "event": "ended",
        "ended_at": iso_from_unix(float(times[since])),
    }


def _recurs(times: Floats, values: Floats, found: Mapping[str, Any]) -> bool:
    """Whether the series already stood where a climb took it, before the climb began."""
    moment = parse_instant(found.get("change_at"))
    if moment is None:
        return False
    split = int(np.searchsorted(times, moment.timestamp()))
    if split <= 0 or split >= len(values):
        return False
    delta = float(found["recent"]) - float(found["baseline"])
    level = float(found["baseline"]) + _SEEN_SHARE * delta
    return _seen_before(times, values, split, level, delta)


def _same_rhythm(times: Floats, values: Floats, split: int, level: float, delta: float) -> bool:
    """Whether the baseline spent a like share of its time beyond `level` as the recent part did:
    bursts that recur (a queue filled and drained every half hour) keep their rhythm after the
    split, which a sustained shift never shows before it."""
    spans = _spans(times)
    beyond = values >= level if delta > 0 else values <= level
    before = float(np.sum(spans[:split][beyond[:split]])) / max(float(np.sum(spans[:split])), TINY)
    after = float(np.sum(spans[split:][beyond[split:]])) / max(float(np.sum(spans[split:])), TINY)
    return before > 0 and before * _RHYTHM_SHARE >= after


def _spans(times: Floats) -> Floats:
    """How long each sample stands for: the gap to the next one, the last the typical gap."""
    last = float(np.median(np.diff(times))) if len(times) > 1 else 0.0
    spans: Floats = np.diff(times, append=times[-1] + last)
    return spans


def _seen_before(times: Floats, values: Floats, split: int, level: float, delta: float) -> bool:
    """Whether the baseline (before `split`) itself reached `level` (in the shift's direction) for at
    least as long in all as the recent part has lasted: a spike that recurs (a batch every half
    hour) is within the series' variability. Measured in time, not samples: a thinned read keeps
    more points where a series moves."""
    spans = _spans(times)
    baseline = values[:split]
    reached = baseline >= level if delta > 0 else baseline <= level
    recent = float(np.sum(spans[split:]))
    return float(np.sum(spans[:split][reached])) >= max(recent, float(spans[-1]))


def _best_shift(values: Floats, *, limits: DigestLimits, floor: float) -> Shift | None:
    """The split whose recent median sits furthest (in baseline MADs) from the baseline median."""
    n = len(values)
    first = max(math.ceil(limits.min_baseline_share * n), 6)
    last = n - max(math.ceil(limits.min_recent_share * n), 3)
    if first > last:
        return None
    stride = max(1, n // 120)
    best = best_shift_among(values, range(first, last + 1, stride), floor)
    if best is None:
        return None
    # Refine around the coarse winner at full resolution.
    lo, hi = max(first, best.split - stride), min(last, best.split + stride)
    return best_shift_among(values, range(lo, hi + 1), floor)


def _anchored(values: Floats, shift: Shift, *, limits: DigestLimits, floor: float) -> Shift:
    """Move the split back to where the samples first left the baseline level.

    On a ramp (a leak, a growing backlog) the largest median gap is at the end of the series; the
    baseline must end where the ramp begins, or it swallows part of the incident.
    """
    sign = 1.0 if float(np.median(values[shift.split :])) >= shift.baseline else -1.0
    start = shift.split
    while start > 0 and sign * (float(values[start - 1]) - shift.baseline) > (
        _SAMPLE_DEVIATION * shift.scale
    ):
        start -= 1
    first = max(math.ceil(limits.min_baseline_share * len(values)), 6)
    if start == shift.split or start < first:
        return shift
    return best_shift_among(values, range(start, start + 1), floor) or shift


@dataclass(frozen=True, slots=True)
class _Trend:
    slope: float
    intercept: float
    scale: float

    def residuals(self, times: Floats, values: Floats) -> Floats:
        return values - (self.intercept + self.slope * times)


def _baseline_trend(times: Floats, values: Floats, shift: Shift, *, floor: float) -> _Trend:
    """A robust linear trend of the baseline's later half: median of pairwise slopes across it.

    The later half only, because a daily curve is closer to linear over a shorter stretch and the
    extrapolation into the recent window is then shorter too.
    """
    first = shift.split // 2
    t_before, before = times[first : shift.split], values[first : shift.split]
    half = len(before) // 2
    dt = t_before[half : 2 * half] - t_before[:half]
    slope = float(np.median((before[half : 2 * half] - before[:half]) / np.maximum(dt, TINY)))
    intercept = float(np.median(before - slope * t_before))
    residuals = before - (intercept + slope * t_before)
    scale = robust_scale(residuals, float(np.median(residuals)), floor)
    # Never trust the trend fit more than half the level spread: extrapolation adds error.
    return _Trend(slope=slope, intercept=intercept, scale=max(scale, shift.scale * 0.5))


def _change_start(times: Floats, values: Floats, split: int, trend: _Trend, direction: str) -> int:
    """The first sample of the run of samples that leave the baseline trend around the split."""
    sign = 1.0 if direction == "up" else -1.0
    deviation = sign * trend.residuals(times, values) / trend.scale
    start = split
    while start > 0 and deviation[start - 1] > _SAMPLE_DEVIATION:
        start -= 1
    while start < len(values) - 1 and deviation[start] <= _SAMPLE_DEVIATION:
        start += 1
    return start


def _abruptness(values: Floats, start: int, delta: float) -> float:
    """How much of the whole shift happens within a few samples of its start (1.0: a clean step)."""
    width = max(3, min(10, len(values) // 36))
    before = values[max(0, start - width) : start]
    after = values[start : start + width]
    if not len(before) or not len(after):
        return 1.0
    return abs(float(np.median(after)) - float(np.median(before))) / max(abs(delta), TINY)


def ratio(recent: float, baseline: float) -> float:
    if abs(baseline) > TINY:
        return recent / baseline
    if recent == 0:
        return 0.0
    return math.copysign(_RATIO_WHEN_BASELINE_ZERO, recent)


def rounded(value: float) -> float:
    """Four significant digits: enough to check, short enough to read."""
    return float(f"{value:.4g}")
