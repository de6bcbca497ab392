"""Serve a world's metrics through MetricsSource, evaluating selectors the way Prometheus does.

A range query is evaluated at start, start+step, ... end, an instant query at one time; each point
takes the latest sample at or before it within the lookback window (Prometheus's default 5m).
Only selectors are supported.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from datetime import datetime

from tools.base import EvidenceStatus, Series, SeriesRef, SourceError, SourceHealth, TimeWindow
from tools.prometheus.selector import Selector, SelectorError, parse_selector
from tools.prometheus.series import series_key
from tools.world import World, WorldSeries

LOOKBACK_S = 300.0
# Prometheus refuses range queries above 11,000 points per series; so does the fixture.
MAX_POINTS = 11_000


class PrometheusFixture:
    """The world's series as a MetricsSource (selectors only), plus label-value discovery."""

    def __init__(self, world: World) -> None:
        self._world = world

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

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        """Distinct values of `label` (`__name__` for metric names) over series in the window."""
        values = {
            item.metric if label == "__name__" else item.labels.get(label, "")
            for item in self._select(None, window)
        }
        return sorted(value for value in values if value)[:limit]

    async def query_range(
        self, *, promql: str, window: TimeWindow, step_s: int, max_series: int
    ) -> list[Series]:
        return self._evaluate(_parse(promql), _evaluation_times(window, step_s), max_series)

    async def query_instant(self, *, promql: str, at: datetime, max_series: int) -> list[Series]:
        return self._evaluate(_parse(promql), [at.timestamp()], max_series)

    def _evaluate(self, selector: Selector, times: list[float], max_series: int) -> list[Series]:
        """Every selected series that has a point at one of `times`, in the shared order."""
        result: list[Series] = []
        for item in self._world.series:
            if not selector.matches(item.metric, item.labels):
                continue
            samples = evaluate(item.samples, times)
            if samples:
                result.append(Series(metric=item.metric, labels=dict(item.labels), samples=samples))
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
    samples: list[tuple[float, float]], times: list[float], lookback_s: float = LOOKBACK_S
) -> list[tuple[float, float]]:
    """Instant-vector values at each time: the latest sample in (t - lookback, t]."""
    stamps = [ts for ts, _ in samples]
    points: list[tuple[float, float]] = []
    for t in times:
        index = bisect.bisect_right(stamps, t) - 1
        if index >= 0 and stamps[index] > t - lookback_s:
            points.append((t, samples[index][1]))
    return points


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
        raise SourceError(
            "unsupported expression in fixture backend (only series selectors are served)",
            status=EvidenceStatus.REJECTED,
        ) from error
