"""Metric anomalies: a robust baseline-versus-recent shift per series, with when it began.

For every split point the series is cut into a baseline (before) and a recent segment (after, to the
end). The split where the medians differ most, measured in baseline MADs, is the candidate change.
It is kept only if it also stands out against the baseline's own trend (so a daily ramp is not an
incident), persists to the end of the series, and changes the level by a meaningful share. Nothing
assumes what a metric means: direction, size and timing are all the digest says. Cumulative
counters are scanned as per-second rates, or as their increase when they rarely move (`counters`),
and named `rate(metric)` or `increase(metric)` in their facts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from tools.digest.counters import (
    cumulative_increase,
    increase_metric,
    is_counter,
    per_second_rates,
    rate_metric,
)
from tools.digest.labels import iso_from_unix, parse_instant, service_of
from tools.digest.level_shift import TINY, Floats, Shift, best_shift_among, robust_scale
from tools.digest.limits import DigestLimits
from tools.digest.restarts import counter_restart, restart_of
from tools.digest.trend import trend_onset
from tools.facts import MetricAnomaly

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
# A counter that had done this share of its counting this long before the newest sample stopped:
# its rise is over.
_SETTLED_SHARE = 0.95
# A counter read by its increase moves on at most this share of its steps (restarts, failovers).
_RARE_SHARE = 0.5
_COUNTING_STOPPED_S = 900.0
# A move whose series has stood this close to its baseline (a share of the way to its peak) for
# this long is over.
_BACK_SHARE = 0.2
_ENDED_FOR_S = 600.0
# A series whose newest sample is this much older than now (and this many of its own steps) went silent.
_SILENT_AFTER_S = 600.0
_SILENT_STEPS = 10
# Moves of members that cancel out to within this share, begun within this long of each other.
_BALANCED = 0.25
_TOGETHER_S = 300.0


def anomalies_from(
    evidence_id: str, data: Mapping[str, Any], *, now: datetime, limits: DigestLimits
) -> list[MetricAnomaly]:
    """Every significant shift in the range-query series of one evidence item."""
    readings: list[_Reading] = []
    for raw in data.get("series") or []:
        if not isinstance(raw, Mapping) or "samples" not in raw:
            continue  # discovery results carry no samples
        labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
        metric = str(raw.get("metric") or labels.get("__name__") or "")
        times, values = _samples(raw.get("samples") or [], now=now)
        silent = None if metric.startswith("ALERTS") else _silent(times, values, now=now, limits=limits)
        readings.append(
            _Reading(
                labels,
                service_of(labels, limits.identity),
                metric,
                *_read(metric, times, values, limits),
                silent,
            )
        )
    # A system stopped reporting when every series of it in the read did (a pod replaced by another
    # of the same workload leaves one series ending and one beginning: no silence).
    heard = {r.service for r in readings if r.silent is None}
    found: list[MetricAnomaly] = []
    for r in readings:
        if r.silent is not None and r.service not in heard:
            metric, fact = r.metric, r.silent
        elif r.anomaly is not None:
            metric, fact = r.read_as, r.anomaly
        else:
            continue
        found.append(
            MetricAnomaly(evidence_id=evidence_id, metric=metric, labels=r.labels, service=r.service, **fact)
        )
    return _moved_between_members(found)


@dataclass(frozen=True, slots=True)
class _Reading:
    labels: dict[str, str]
    service: str | None
    metric: str  # as the series is named
    read_as: str  # as its fact names it (`rate(x)` for a counter)
    anomaly: dict[str, Any] | None
    silent: dict[str, Any] | None


def _read(
    metric: str, times: Floats, values: Floats, limits: DigestLimits
) -> tuple[str, dict[str, Any] | None]:
    """The series' fact and the name it goes by: a restart, else a counter's rate or increase, else
    a level shift."""
    counter = is_counter(metric, values)
    restart = _restart_anomaly(times, values, counter=counter, limits=limits)
    if restart is not None:
        return metric, restart
    if counter:
        return _counter_anomaly(metric, times, values, limits=limits)
    return metric, _series_anomaly(times, values, limits=limits)


def _moved_between_members(found: list[MetricAnomaly]) -> list[MetricAnomaly]:
    """Moves of one metric of one system that cancel out at one moment: what one member lost another
    gained (a failover's traffic, clients and replicas changing masters). The system as a whole did
    not move; each member's series did, for good: marked `moved`, a change like a restart."""
    groups: dict[tuple[str, str | None], list[MetricAnomaly]] = {}
    for anomaly in found:
        if anomaly.event is None:
            groups.setdefault((anomaly.metric, anomaly.service), []).append(anomaly)
    moved: set[int] = set()
    for members in groups.values():
        ups = [a for a in members if a.direction == "up"]
        downs = [a for a in members if a.direction == "down"]
        if not ups or not downs or not _together(members):
            continue
        gained = sum(a.recent - a.baseline for a in ups)
        lost = sum(a.baseline - a.recent for a in downs)
        if gained > 0 and lost > 0 and abs(gained - lost) <= _BALANCED * max(gained, lost):
            moved |= {id(a) for a in members}
    return [replace(a, event="moved") if id(a) in moved else a for a in found]


def _together(members: Sequence[MetricAnomaly]) -> bool:
    times = [t.timestamp() for a in members if (t := parse_instant(a.change_at)) is not None]
    return len(times) == len(members) and max(times) - min(times) <= _TOGETHER_S


def _silent(times: Floats, values: Floats, *, now: datetime, limits: DigestLimits) -> dict[str, Any] | None:
    """A series that reported regularly and then stopped well before now: its target went away (a
    process that died, a machine that is down), which no value of it can show."""
    if len(times) < limits.min_samples:
        return None
    spacing = float(np.median(np.diff(times)))
    gap = now.timestamp() - float(times[-1])
    if gap < max(_SILENT_AFTER_S, _SILENT_STEPS * spacing):
        return None
    last = float(values[-1])
    return {
        "baseline": _round(float(np.median(values))),
        "recent": _round(last),
        "peak": _round(last),
        "change_at": iso_from_unix(float(times[-1]) + spacing),
        "direction": "down",
        "ratio": 0.0,
        "score": limits.max_score,
        "event": "silent",
    }


def _restart_anomaly(
    times: Floats, values: Floats, *, counter: bool, limits: DigestLimits
) -> dict[str, Any] | None:
    """A series of a process's age or start time that shows it started again: the restart is the
    fact (an age read as a counter has a flat rate; a start time's jump is a tiny share of it). So is
    a count that fell back near zero in a series not read as a counter (its drop is no level)."""
    restart = restart_of(times, values)
    if restart is None and not counter:
        restart = counter_restart(times, values)
    if restart is None:
        return None
    recent = float(values[-1])
    return {
        "baseline": _round(restart.before),
        "recent": _round(recent),
        "peak": _round(float(np.max(values[restart.split :]))),
        "change_at": iso_from_unix(restart.at),
        "direction": "up" if restart.rising else "down",
        "ratio": _round(_ratio(recent, restart.before)),
        "score": limits.max_score,
        "event": "restart",
    }


def _counter_anomaly(
    metric: str, times: Floats, values: Floats, *, limits: DigestLimits
) -> tuple[str, dict[str, Any] | None]:
    """A counter's anomaly read from its rate, else from its increase.

    The values of the fact are then rates (or increases), and its metric says which, so every
    number in it stays checkable against the digest.
    """
    anomaly = _series_anomaly(*per_second_rates(times, values), limits=limits)
    if anomaly is not None:
        return rate_metric(metric), anomaly
    grown = cumulative_increase(values)
    if np.count_nonzero(np.diff(grown) > 0) > _RARE_SHARE * (len(grown) - 1):
        # A counter that counts all the time ramps by its increase: only its rate says anything.
        return increase_metric(metric), None
    # An increase stays up forever once counted: a counter that had done nearly all its counting a
    # while ago (a burst of failures that ended, a trickle since) is a past event, not a current shift.
    total = float(grown[-1])
    if total > 0:
        settled = int(np.argmax(grown >= _SETTLED_SHARE * total))
        if times[-1] - times[settled] > _COUNTING_STOPPED_S:
            return increase_metric(metric), None
    anomaly = _series_anomaly(times, grown, limits=limits)
    if anomaly is not None and _counted_before(times, grown, anomaly):
        return increase_metric(metric), None  # a trickle all along ramps its increase: nothing began
    return increase_metric(metric), anomaly


def _counted_before(times: Floats, grown: Floats, anomaly: Mapping[str, Any]) -> bool:
    """Whether a rarely-moving counter counted before its increase "changed" about as often as after
    (per step, at least a third as often; more than once): then the change is its usual trickle, not
    a start."""
    moment = parse_instant(anomaly.get("change_at"))
    if moment is None:
        return False
    rises = np.diff(grown) > 0
    split = int(np.searchsorted(times[1:], moment.timestamp()))
    before, after = int(np.count_nonzero(rises[:split])), int(np.count_nonzero(rises[split:]))
    if before <= 1:
        return False
    return before / max(split, 1) * 3 >= after / max(len(rises) - split, 1)


def rank_anomalies(
    anomalies: Sequence[MetricAnomaly], *, limit: int, per_metric_service: int
) -> list[MetricAnomaly]:
    """Highest score first; ties go to the earlier change (more likely a cause than an effect)."""
    ordered = sorted(
        anomalies,
        key=lambda a: (-a.score, a.change_at or "~", a.metric, sorted(a.labels.items())),
    )
    kept: list[MetricAnomaly] = []
    per_key: dict[tuple[str, str | None], int] = {}
    for anomaly in ordered:
        key = (anomaly.metric, anomaly.service)
        if per_key.get(key, 0) < per_metric_service:
            per_key[key] = per_key.get(key, 0) + 1
            kept.append(anomaly)
    return kept[:limit]


def _samples(raw: Sequence[Any], *, now: datetime) -> tuple[Floats, Floats]:
    """Finite (time, value) pairs up to `now`, time-ordered; unreadable pairs are dropped."""
    cutoff = now.timestamp()
    numeric = _numeric_pairs(raw)
    if numeric is not None:  # the usual shape: read as one array instead of pair by pair
        times, values = numeric[:, 0], numeric[:, 1]
        keep = np.isfinite(times) & np.isfinite(values) & (times <= cutoff)
        times, values = times[keep], values[keep]
        order = np.lexsort((values, times))  # by time, then value: as sorting the pairs does
        return times[order], values[order]
    pairs: list[tuple[float, float]] = []
    for sample in raw:
        try:
            ts, value = float(sample[0]), float(sample[1])
        except (TypeError, ValueError, IndexError):
            continue
        if math.isfinite(ts) and math.isfinite(value) and ts <= cutoff:
            pairs.append((ts, value))
    pairs.sort()
    times = np.array([p[0] for p in pairs], dtype=np.float64)
    values = np.array([p[1] for p in pairs], dtype=np.float64)
    return times, values


def _numeric_pairs(raw: Sequence[Any]) -> Floats | None:
    """`raw` as an (n, 2+) float array when it is all plain numbers; None for anything else."""
    try:
        array = np.asarray(raw)
    except ValueError:  # ragged
        return None
    if array.ndim != 2 or array.shape[1] < 2 or array.dtype.kind not in "biuf":
        return None  # strings, objects, missing values: read pair by pair
    return array[:, :2].astype(np.float64)


def _series_anomaly(times: Floats, values: Floats, *, limits: DigestLimits) -> dict[str, Any] | None:
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
        "baseline": _round(found["baseline"]),
        "recent": _round(found["recent"]),
        "peak": _round(found["peak"]),
        "ratio": _round(_ratio(found["recent"], found["baseline"])),
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


def _ratio(recent: float, baseline: float) -> float:
    if abs(baseline) > TINY:
        return recent / baseline
    if recent == 0:
        return 0.0
    return math.copysign(_RATIO_WHEN_BASELINE_ZERO, recent)


def _round(value: float) -> float:
    """Four significant digits: enough to check, short enough to read."""
    return float(f"{value:.4g}")
