"""Moves that are a series' daily rhythm: the same series, read over the same window a day (or a few)
earlier, made the same move at the same hour. A 120-minute window cannot tell a daily peak from an
incident; the day before can.

The day-earlier read holds its own samples at their own times; shifted forward by its `days_before`,
it is compared with the move's level over the span from the move's start to now (with some slack
for a peak that came a little earlier or later). It repeats the move when it stood beyond half the
move's height for at least half as long as the move has lasted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from tools.base import Evidence
from tools.digest.labels import parse_instant
from tools.facts import MetricAnomaly, RoutineMove
from tools.prometheus.series import series_key

DAY_S = 86_400.0
SLACK = timedelta(minutes=30)  # a daily peak comes a little earlier or later each day
_REACHED_SHARE = 0.5  # how far toward today's level the earlier day must have gone
_LASTED_SHARE = 0.5  # for how much of today's span

SeriesKey = tuple[str, tuple[tuple[str, str], ...]]  # `series_key`
Earlier = tuple[str, int, list[tuple[float, float]]]  # evidence id, days before, samples


def earlier_read(item: Evidence) -> int:
    """How many days before now `item` reads (0: it reads the present)."""
    days = item.query.get("days_before") if isinstance(item.query, Mapping) else None
    return days if isinstance(days, int) and days > 0 else 0


def split_routine(
    anomalies: Sequence[MetricAnomaly], earlier: Sequence[Evidence], *, now: datetime
) -> tuple[list[MetricAnomaly], list[RoutineMove]]:
    """`anomalies` without those an earlier read shows at the same hour, and those as routine moves."""
    index = _index(earlier)
    kept: list[MetricAnomaly] = []
    routine: list[RoutineMove] = []
    for anomaly in anomalies:
        key = series_key(anomaly.metric, anomaly.labels)
        repeat = next((r for e in index.get(key, []) if (r := _repeat(anomaly, e, now)) is not None), None)
        if repeat is None:
            kept.append(anomaly)
        else:
            routine.append(repeat)
    return kept, routine


def _index(earlier: Sequence[Evidence]) -> dict[SeriesKey, list[Earlier]]:
    index: dict[SeriesKey, list[Earlier]] = {}
    for item in earlier:
        days = earlier_read(item)
        for series in _series(item.data):
            labels = series.get("labels") or {}
            key = series_key(str(series.get("metric")), {str(k): str(v) for k, v in labels.items()})
            samples = [
                (float(t), float(v)) for t, v in series.get("samples") or [] if _number(t) and _number(v)
            ]
            index.setdefault(key, []).append((item.id, days, samples))
    return index


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _series(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = data.get("series")
    return [s for s in found if isinstance(s, Mapping)] if isinstance(found, list) else []


def _repeat(anomaly: MetricAnomaly, earlier: Earlier, now: datetime) -> RoutineMove | None:
    start = parse_instant(anomaly.change_at)
    evidence_id, days, samples = earlier
    if start is None or len(samples) < 2 or start >= now:
        return None
    shift = days * DAY_S
    low, high = (start - SLACK).timestamp() - shift, now.timestamp() - shift
    inside = [(t, v) for t, v in samples if low <= t <= high]
    if len(inside) < 2:
        return None
    level = anomaly.baseline + _REACHED_SHARE * (anomaly.recent - anomaly.baseline)
    up = anomaly.direction == "up"
    # Each sample stands for the time to the next one (a thinned read keeps more points where it moves).
    gaps = [b[0] - a[0] for a, b in pairwise(inside)]
    spans = [*gaps, sorted(gaps)[len(gaps) // 2]]
    reached = [v >= level if up else v <= level for _, v in inside]
    beyond = sum(span for span, hit in zip(spans, reached, strict=True) if hit)
    if beyond < _LASTED_SHARE * (now - start).total_seconds():
        return None
    # And it made the move: before it, the earlier day stood on the baseline's side (a series already
    # high, or one that only grows, repeats no move; it is still where it was).
    before = sorted(v for t, v in samples if low - SLACK.total_seconds() <= t < low)
    if not before:
        # The earlier read covers the same window as today's, so a move early in it leaves no sample
        # before the slack: the earlier day's samples before the move's own hour say where it stood.
        before = sorted(v for t, v in samples if t < start.timestamp() - shift)
    if not before:
        return None
    median = before[len(before) // 2]
    if (median >= level) if up else (median <= level):
        return None
    values = [v for _, v in inside]
    return RoutineMove(anomaly, evidence_id, days, max(values) if up else min(values))
