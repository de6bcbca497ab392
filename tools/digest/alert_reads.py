"""Moves of a firing alert's own metrics in series too short for the baseline scan.

The level-shift scan needs `min_samples` points before it judges a series against its own normal
variability; a Prometheus that started minutes ago, or a series born with the trouble, has fewer.
For the metrics a firing alert's rule evaluates (discovery reads them for the alert, at its
identity) the alert itself already says the condition is significant: what the read adds is whether
the series moved into it inside the window, and from what to what. So a short series of such a read
whose newest value is where it went (its extreme in the move's direction) and that changed by a
meaningful share is a fact. Longer series are left to the scan: there the series' own history
decides whether a level is normal, and a rule that fires on a normal swing stays unexplained.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tools.base import Evidence, EvidenceStatus
from tools.digest.labels import iso_from_unix, service_of
from tools.digest.limits import DigestLimits
from tools.facts import MetricAnomaly

_DISCOVERY_TOOL = "list_metrics"
_READ_TOOL = "read_metric"
_ALERT_REASON = "alert"
_RATIO_WHEN_BASELINE_ZERO = 1e6


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
            move = _short_move(raw.get("samples") or [], limits)
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
    """first -> newest, when the series is too short to scan, ends at its extreme and moved enough."""
    points = sorted(_points(raw))
    if not 2 <= len(points) < limits.min_samples:
        return None
    values = [v for _, v in points]
    baseline, recent = values[0], values[-1]
    delta = recent - baseline
    if delta == 0 or abs(delta) < limits.min_relative_change * max(abs(baseline), abs(recent)):
        return None
    if recent != (max(values) if delta > 0 else min(values)):
        return None  # it went there and came back: not where the series is now
    # The move began at the first point that left the starting value toward the newest one.
    start = next(i for i, v in enumerate(values) if (v - baseline) * delta > 0)
    return {
        "baseline": _round(baseline),
        "recent": _round(recent),
        "peak": _round(recent),
        "change_at": iso_from_unix(points[start][0]),
        "direction": "up" if delta > 0 else "down",
        "ratio": _round(recent / baseline) if baseline else _RATIO_WHEN_BASELINE_ZERO,
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
