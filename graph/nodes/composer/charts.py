"""Charts of the metric evidence a report's findings cite: the payload's optional `charts` field.

For every evidence id a finding cites whose evidence holds range-query series, one chart: the series
exactly as the evidence holds them (a counter the digest read as a rate is drawn as that rate, named
so), each named by its identity labels; the digest's baseline, change point and peak of the anomalous
series; and the firing window of an alert on the same system when the evidence has one. Plain data:
the frontend (`frontend/chart.js`) draws it, and a client that does not know the field ignores it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from graph.analysts.base import Draft
from tools.base import Evidence
from tools.digest.counters import cumulative_increase, per_second_rates
from tools.digest.labels import parse_instant, service_of
from tools.facts import AlertGroup, Digest, MetricAnomaly
from tools.identity import DEFAULT_IDENTITY, IdentityLabels, identity_of

MAX_CHARTS = 8
MAX_SERIES = 4  # per chart: the anomalous series first
MAX_POINTS = 1_000  # the tools' own bound per series
# Every chart's points together: the released answer has a byte bound (chat.max_answer_bytes).
TOTAL_POINTS = 2_000
# Prometheus' base-unit suffixes (its naming conventions), read from the metric or the title.
_UNITS = (
    (re.compile(r"per_second|per second"), "/s"),
    (re.compile(r"(?:^|_|\b)seconds(?:_|\b)"), "s"),
    (re.compile(r"(?:^|_|\b)bytes(?:_|\b)"), "B"),
    (re.compile(r"(?:^|_|\b)percent(?:_|\b)"), "%"),
    (re.compile(r"(?:^|_|\b)ratio(?:_|\b)"), "ratio"),
)


def unit_of(metric: str, title: str) -> str:
    """The unit a metric's name states (`_seconds`, `_bytes`, `_percent`, `_ratio`); a rate is per second."""
    text = f"{metric} {title}".lower()
    base = next((unit for pattern, unit in _UNITS if pattern.search(text)), "")
    if metric.startswith("rate(") and not base.endswith("/s"):
        return f"{base}/s"
    return base


def series_name(metric: str, labels: Mapping[str, str], identity: IdentityLabels) -> str:
    """The series' identity labels (`service=api instance=a:9100`), else its labels, else the metric."""
    ident = identity_of(labels, identity)
    pairs = [*ident.primary, *ident.qualifiers] or sorted(labels.items())[:4]
    named = " ".join(f"{k}={v}" for k, v in pairs)
    return named or metric or "series"


def _points(raw: Sequence[Any]) -> list[list[float]]:
    points = []
    for sample in raw[:MAX_POINTS]:
        try:
            t, v = float(sample[0]), float(sample[1])
        except (TypeError, ValueError, IndexError):
            continue
        if math.isfinite(t) and math.isfinite(v):
            points.append([t, v])
    return points


def thin(points: list[list[float]], limit: int) -> list[list[float]]:
    """At most `limit` of the points, evenly spaced, always with the first, last, lowest and highest:
    a subset of the evidence's own points, never an interpolation."""
    if len(points) <= limit:
        return points
    keep = {0, len(points) - 1}
    keep.add(max(range(len(points)), key=lambda i: points[i][1]))
    keep.add(min(range(len(points)), key=lambda i: points[i][1]))
    step = (len(points) - 1) / max(1, limit - len(keep))
    keep.update(round(k * step) for k in range(limit - len(keep)))
    return [points[i] for i in sorted(keep)]


def _as_read(
    points: list[list[float]], metric: str, anomaly: MetricAnomaly | None
) -> tuple[str, list[list[float]]]:
    """The points as the digest read them: a counter's rate or increase when its anomaly says so."""
    if anomaly is None or anomaly.metric == metric or len(points) < 2:
        return metric, points
    times, values = np.array([p[0] for p in points]), np.array([p[1] for p in points])
    if anomaly.metric.startswith("rate("):
        times, values = per_second_rates(times, values)
    elif anomaly.metric.startswith("increase("):
        values = cumulative_increase(values)
    else:
        return metric, points
    return anomaly.metric, [[float(t), float(v)] for t, v in zip(times, values, strict=True)]


def _marks(points: list[list[float]], anomaly: MetricAnomaly | None) -> dict[str, Any]:
    """Baseline, change point and peak of the anomalous series (the peak alone for another)."""
    if not points:
        return {"baseline": None, "change_at": None, "peak": None}
    change = parse_instant(anomaly.change_at) if anomaly is not None and anomaly.change_at else None
    change_at = change.timestamp() if change is not None else None
    after = [p for p in points if change_at is None or p[0] >= change_at] or points
    peak = (
        max(after, key=lambda p: p[1])
        if anomaly is None or anomaly.direction != "down"
        else min(after, key=lambda p: p[1])
    )
    return {
        "baseline": anomaly.baseline if anomaly is not None else None,
        "change_at": change_at,
        "peak": peak,
    }


def _alert_window(system: str | None, alerts: Sequence[AlertGroup]) -> list[float | None] | None:
    """[start, None] of a firing alert on the same system (still firing: open-ended), else None."""
    for group in alerts:
        if system is None or group.status != "firing" or group.service != system or not group.first_started:
            continue
        started = parse_instant(group.first_started)
        if started is not None:
            return [started.timestamp(), None]
    return None


def _chart(item: Evidence, digest: Digest, identity: IdentityLabels, budget: int) -> dict[str, Any] | None:
    raw_series = [s for s in item.data.get("series") or [] if isinstance(s, Mapping) and "samples" in s]
    if not raw_series:
        return None
    anomalies = [a for a in digest.anomalies if a.evidence_id == item.id]
    entries = []
    for raw in raw_series:
        labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
        metric = str(raw.get("metric") or labels.get("__name__") or "")
        anomaly = next((a for a in anomalies if a.labels == labels), None)
        read_metric, points = _as_read(_points(raw.get("samples") or []), metric, anomaly)
        entries.append((anomaly is None, read_metric, labels, points, anomaly))
    entries.sort(key=lambda entry: entry[0])  # the anomalous series first (stable otherwise)
    series = []
    shown = entries[:MAX_SERIES]
    for _, metric, labels, points, anomaly in shown:
        points = thin(points, max(60, budget // len(shown)))
        series.append(
            {
                "name": series_name(metric, labels, identity),
                "metric": metric,
                "points": points,
                **_marks(points, anomaly),
            }
        )
    first = entries[0]
    system = first[4].service if first[4] is not None else service_of(first[2], identity)
    return {
        "evidence_id": item.id,
        "title": item.title,
        "unit": unit_of(first[1], item.title),
        "series": series,
        "omitted_series": max(0, len(entries) - MAX_SERIES),
        "alert_window": _alert_window(system, digest.alert_groups),
    }


def finding_charts(
    draft: Draft, items: Sequence[Evidence], digest: Digest, identity: IdentityLabels = DEFAULT_IDENTITY
) -> list[dict[str, Any]]:
    """One chart per metric evidence item a finding cites, in the order findings cite them."""
    by_id = {item.id: item for item in items}
    cited: list[str] = []
    for finding in draft.findings:
        cited += [i for i in finding.evidence_ids if i not in cited]
    charts: list[dict[str, Any]] = []
    metric_items = [by_id[i] for i in cited if i in by_id and by_id[i].data.get("series")]
    budget = TOTAL_POINTS // max(1, min(len(metric_items), MAX_CHARTS))
    for item in metric_items:
        chart = _chart(item, digest, identity, budget)
        if chart is not None:
            charts.append(chart)
        if len(charts) >= MAX_CHARTS:
            break
    return charts
