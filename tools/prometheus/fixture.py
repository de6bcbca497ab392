"""Serve a world's metrics through MetricsSource, evaluating selectors the way Prometheus does.

A range query is evaluated at start, start+step, ... end, an instant query at one time; each point
takes the latest sample at or before it within the lookback window (Prometheus's default 5m).
Selectors and the subset of `evaluator.py` (rates, aggregations by labels, histogram quantiles) are
supported. Rules come from the world's alerts (their optional `expr`), metadata from metadata.json,
scrape targets from the world's `up` series.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from itertools import pairwise

from tools.base import (
    Alert,
    EvidenceStatus,
    MetricMetadata,
    Rule,
    ScrapeTarget,
    Series,
    SeriesRef,
    SourceError,
    SourceHealth,
    TimeWindow,
)
from tools.prometheus import evaluator
from tools.prometheus.selector import Selector, SelectorError, parse_selector
from tools.prometheus.series import series_key
from tools.world import World, WorldSeries
from tools.world.alert_history import ALERTS_METRIC

LOOKBACK_S = 300.0
# Prometheus refuses range queries above 11,000 points per series; so does the fixture.
MAX_POINTS = 11_000


class PrometheusFixture:
    """The world's series as a MetricsSource (selectors only), plus label-value discovery."""

    def __init__(self, world: World) -> None:
        self._world = world
        self._data = [
            (metric, labels, _with_staleness(samples) if metric == ALERTS_METRIC else samples)
            for metric, labels, samples in _one_per_identity(world.series)
        ]

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    async def now(self) -> datetime:
        return self._world.now

    async def list_series(self, *, match: str | None, window: TimeWindow, limit: int) -> list[SeriesRef]:
        """Series with a sample in the window, optionally narrowed by a selector, sorted."""
        refs = [
            SeriesRef(metric=item.metric, labels=dict(item.labels)) for item in self._select(match, window)
        ]
        return sorted(refs, key=lambda ref: series_key(ref.metric, ref.labels))[:limit]

    async def label_names(self, *, window: TimeWindow, limit: int) -> list[str]:
        names = {key for item in self._select(None, window) for key in item.labels}
        return sorted({"__name__", *names})[:limit]

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        """Distinct values of `label` (`__name__` for metric names) over series in the window."""
        values = {
            item.metric if label == "__name__" else item.labels.get(label, "")
            for item in self._select(None, window)
        }
        return sorted(value for value in values if value)[:limit]

    async def metric_names(self, *, match: Sequence[str], window: TimeWindow, limit: int) -> list[str]:
        names: set[str] = set()
        selectors: Sequence[str | None] = match or [None]
        for selector in selectors:
            names.update(item.metric for item in self._select(selector, window))
        return sorted(names)[:limit]

    async def metadata(self, *, metric: str) -> MetricMetadata | None:
        entry = self._world.metadata.get(metric)
        return None if entry is None else MetricMetadata(type=entry.type, help=entry.help, unit=entry.unit)

    async def rules(self, *, limit: int) -> list[Rule]:
        """One alerting rule per alert name of the world, holding its active alerts as firing."""
        rules: dict[str, Rule] = {}
        for alert in self._world.alerts:
            name = alert.labels["alertname"]
            rule = rules.setdefault(name, Rule(name=name, kind="alerting", expr=alert.expr, group="world"))
            if alert.active_at(self._world.now):
                firing = Alert(
                    labels=dict(alert.labels),
                    annotations=dict(alert.annotations),
                    starts_at=alert.starts_at,
                    ends_at=None,
                    status="firing",
                )
                rules[name] = Rule(
                    rule.name, rule.kind, rule.expr or alert.expr, rule.group, alerts=(*rule.alerts, firing)
                )
        return list(rules.values())[:limit]

    async def targets(self, *, limit: int) -> list[ScrapeTarget]:
        """A target per `up` series: up at 1, down at 0, unknown without a recent sample."""
        now = self._world.now.timestamp()
        targets = []
        for item in self._world.series:
            if item.metric != "up":
                continue
            latest = evaluate(item.samples, [now])
            health = "unknown" if not latest else ("up" if latest[0][1] == 1 else "down")
            targets.append(ScrapeTarget(labels=dict(item.labels), health=health))
        targets.sort(key=lambda t: (t.labels.get("job", ""), t.labels.get("instance", "")))
        return targets[:limit]

    async def query_range(
        self, *, promql: str, window: TimeWindow, step_s: int, max_series: int
    ) -> list[Series]:
        return self._evaluate(promql, _evaluation_times(window, step_s), max_series)

    async def query_instant(self, *, promql: str, at: datetime, max_series: int) -> list[Series]:
        return self._evaluate(promql, [at.timestamp()], max_series)

    def _evaluate(self, promql: str, times: list[float], max_series: int) -> list[Series]:
        """Every resulting series that has a point at one of `times`, in the shared order."""
        try:
            node = evaluator.parse(promql)
        except SelectorError as error:
            raise _unsupported() from error
        points = evaluator.evaluate(node, self._data, times, evaluate)
        result = [
            Series(metric=metric, labels=dict(labels), samples=samples)
            for (metric, labels), samples in points.items()
            if samples
        ]
        result.sort(key=lambda series: series_key(series.metric, series.labels))
        return result[:max_series]

    def _select(self, match: str | None, window: TimeWindow) -> Iterable[WorldSeries]:
        selector = _parse(match) if match else None
        start, end = window.start.timestamp(), window.end.timestamp()
        for item in self._world.series:
            if selector is not None and not selector.matches(item.metric, item.labels):
                continue
            if any(start <= ts <= end for ts, _ in item.samples):
                yield item


def evaluate(
    samples: Sequence[tuple[float, float]], times: list[float], lookback_s: float = LOOKBACK_S
) -> list[tuple[float, float]]:
    """Instant-vector values at each time: the latest sample in (t - lookback, t], unless that
    sample is a staleness marker (NaN, as Prometheus writes them)."""
    stamps = [ts for ts, _ in samples]
    points: list[tuple[float, float]] = []
    for t in times:
        index = bisect.bisect_right(stamps, t) - 1
        if index >= 0 and stamps[index] > t - lookback_s and not math.isnan(samples[index][1]):
            points.append((t, samples[index][1]))
    return points


_Sample = tuple[float, float]


def _one_per_identity(series: Sequence[WorldSeries]) -> list[tuple[str, Mapping[str, str], list[_Sample]]]:
    """One series per metric and label set, as in a TSDB: a world may write one identity's samples
    in several entries (an alert's firing episodes), which Prometheus would hold as one series."""
    merged: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[str, Mapping[str, str], list[_Sample]]] = {}
    extended: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    for item in series:
        key = (item.metric, tuple(sorted(item.labels.items())))
        if key in merged:
            merged[key][2].extend(item.samples)
            extended.add(key)
        else:
            merged[key] = (item.metric, item.labels, list(item.samples))
    for key in extended:  # each entry comes sorted; only the merged ones need it again, once
        merged[key][2].sort(key=lambda sample: sample[0])
    return list(merged.values())


def _with_staleness(samples: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """An alert's firing samples with the staleness marker Prometheus writes when it resolves: one
    evaluation interval after the last sample of each run (a pause longer than two intervals ends
    a run), so a resolved alert is not read as firing for five more minutes of lookback."""
    if len(samples) < 2:
        return list(samples)
    gaps = sorted(b[0] - a[0] for a, b in pairwise(samples))
    interval = gaps[len(gaps) // 2]
    marked: list[tuple[float, float]] = []
    for sample, following in zip(samples, [*samples[1:], None], strict=True):
        marked.append(sample)
        if following is None or following[0] - sample[0] > 2 * interval:
            marked.append((sample[0] + interval, math.nan))
    return marked


def _evaluation_times(window: TimeWindow, step_s: int) -> list[float]:
    start, end = window.start.timestamp(), window.end.timestamp()
    if step_s <= 0:
        raise SourceError("step must be positive", status=EvidenceStatus.REJECTED)
    if end < start:
        raise SourceError("the window ends before it starts", status=EvidenceStatus.REJECTED)
    count = int((end - start) // step_s) + 1
    if count > MAX_POINTS:
        raise SourceError(
            f"too many points per series ({count} > {MAX_POINTS}); use a larger step",
            status=EvidenceStatus.REJECTED,
        )
    return [start + index * step_s for index in range(count)]


def _parse(text: str) -> Selector:
    try:
        return parse_selector(text)
    except SelectorError as error:
        raise _unsupported() from error


def _unsupported() -> SourceError:
    return SourceError(
        "unsupported expression in fixture backend (selectors, rates, aggregations and "
        "histogram quantiles are served)",
        status=EvidenceStatus.REJECTED,
    )
