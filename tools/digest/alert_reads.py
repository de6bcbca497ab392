"""Moves of a firing alert's own metrics the baseline scan cannot see: too short a series, too new a move.

The level-shift scan needs `min_samples` points before it judges a series against its own normal
variability; a Prometheus that started minutes ago, or a series born with the trouble, has fewer.
For the metrics a firing alert's rule evaluates (discovery reads them for the alert, at its
identity) the alert itself already says the condition is significant: what the read adds is whether
the series moved into it inside the window, and from what to what. So such a read whose newest
points lie beyond every earlier point of the window, by a meaningful share, is a fact: in a short
series however many they are, in a longer one only a move shorter than the scan's recent part,
which the scan needs more points to see. Anything older is the scan's to judge: there the series' own
history decides whether a level is normal, and a rule that fires on a normal swing stays unexplained.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from tools.base import Evidence, EvidenceStatus
from tools.digest.labels import iso_from_unix, parse_instant, service_of
from tools.digest.limits import DigestLimits
from tools.facts import MetricAnomaly

_DISCOVERY_TOOL = "list_metrics"
_READ_TOOL = "read_metric"
_ALERT_REASON = "alert"
_RATIO_WHEN_BASELINE_ZERO = 1e6
_RATE_PREFIX = "rate("  # how a counter's read names its series (discovery.read_name)
# The baseline scan judges a move only once it holds its recent part: at least three points, or
# `min_recent_share` of the series (tools/digest/series_shift.py). A move shorter than that is seen here.
_SCAN_RECENT_MIN = 3


def alert_read_moves(
    evidence: Sequence[Evidence], known: Sequence[MetricAnomaly], *, limits: DigestLimits
) -> list[MetricAnomaly]:
    """Short series of the alert-linked reads that moved, except those the scan already judged."""
    linked = _alert_metrics(evidence)
    if not linked:
        return []
    seen = {(a.metric, tuple(sorted(a.labels.items()))) for a in known}
    found: list[MetricAnomaly] = []
    for item in evidence:
        if item.tool != _READ_TOOL or item.status is not EvidenceStatus.OK:
            continue
        if str(item.query.get("metric", "")) not in linked:
            continue
        for raw in item.data.get("series") or []:
            if not isinstance(raw, Mapping):
                continue
            labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
            metric = str(raw.get("metric") or item.query.get("metric") or "")
            if (metric, tuple(sorted(labels.items()))) in seen:
                continue
            samples = raw.get("samples") or []
            move = _short_move(samples, limits)
            if move is None and metric.startswith(_RATE_PREFIX):
                move = _born_move(samples, item.query, limits)
            if move is not None:
                service = service_of(labels, limits.identity)
                found.append(MetricAnomaly(item.id, metric, labels, service, **move))
    return found


def _alert_metrics(evidence: Sequence[Evidence]) -> set[str]:
    """Metrics discovery chose because a firing alert's rule evaluates them."""
    names: set[str] = set()
    for item in evidence:
        if item.tool != _DISCOVERY_TOOL or item.status is not EvidenceStatus.OK:
            continue
        for read in item.data.get("reads") or []:
            if isinstance(read, Mapping) and str(read.get("reason", "")).startswith(_ALERT_REASON):
                names.add(str(read.get("metric", "")))
    return names - {""}


def _short_move(raw: Sequence[Any], limits: DigestLimits) -> dict[str, Any] | None:
    """The newest points beyond every earlier one, by a meaningful share of the earlier median: in a
    series too short to scan, however many they are; in a longer one, only a tail shorter than the
    scan's recent part (a move seconds old is invisible to it: an `up` at 0 for four points of 400)."""
    points = sorted(_points(raw))
    n = len(points)
    if n < 2:
        return None
    values = [v for _, v in points]
    unseen = max(math.ceil(limits.min_recent_share * n), _SCAN_RECENT_MIN) - 1
    longest = n - 1 if n < limits.min_samples else min(unseen, n - 1)
    for k in range(longest, 0, -1):
        earlier, tail = values[:-k], values[-k:]
        if not (min(tail) > max(earlier) or max(tail) < min(earlier)):
            continue  # the series has been there before in the window: not where it went
        baseline, recent = float(median(earlier)), values[-1]
        if abs(recent - baseline) < limits.min_relative_change * max(abs(baseline), abs(recent)):
            continue
        return {
            "baseline": _round(baseline),
            "recent": _round(recent),
            "peak": _round(recent),
            "change_at": iso_from_unix(points[n - k][0]),
            "direction": "up" if recent > baseline else "down",
            "ratio": _round(recent / baseline) if baseline else _RATIO_WHEN_BASELINE_ZERO,
            "score": limits.min_score,
        }
    return None


def _born_move(raw: Sequence[Any], query: Mapping[str, Any], limits: DigestLimits) -> dict[str, Any] | None:
    """A counter's rate series born inside the window rose from nothing at its first point: a
    counter's labelled series appears with its first event (a handler's 5xx series with its first
    failure), so before it there were none. Born means later than a couple of steps after the
    window's start; a series there from the start is the other reads' to judge."""
    points = sorted(_points(raw))
    step_s = float(query.get("step_seconds") or 0)
    start = parse_instant(query.get("start"))
    if not points or step_s <= 0 or start is None or points[0][0] - start.timestamp() < 2 * step_s:
        return None
    recent, peak = points[-1][1], max(v for _, v in points)
    if recent <= 0:
        return None
    return {
        "baseline": 0.0,
        "recent": _round(recent),
        "peak": _round(peak),
        "change_at": iso_from_unix(points[0][0]),
        "direction": "up",
        "ratio": _RATIO_WHEN_BASELINE_ZERO,
        "score": limits.min_score,
    }


def _round(value: float) -> float:
    # Four significant digits, as the scan's facts: enough to check, short enough to read.
    return float(f"{value:.4g}")


def _points(raw: Sequence[Any]) -> list[tuple[float, float]]:
    points: list[tuple[float, float]] = []
    for sample in raw:
        try:
            points.append((float(sample[0]), float(sample[1])))
        except (TypeError, ValueError, IndexError):
            continue
    return [(t, v) for t, v in points if t == t and v == v and abs(v) != float("inf")]
