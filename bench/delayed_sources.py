"""Evidence backends that answer like the fixture world after a fixed delay (item 2).

Each proxy implements the same protocol as the source it wraps; only the data calls wait (the clock
and health calls answer at once), and every data call's start and end are recorded. Answers are
memoised per arguments: a real backend's query cost is spent on its own machine, so after one warm-up
run the bench process pays only the delay, not the fixture world's in-process query evaluation.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Hashable
from datetime import datetime
from typing import Any, TypeVar

from tools.base import (
    Alert,
    AlertsSource,
    LogLine,
    LogQuery,
    LogsSource,
    MetricsSource,
    Series,
    SeriesRef,
    SourceHealth,
    TimeWindow,
)

T = TypeVar("T")


class CallLog:
    """(source, started, ended) of every delayed call, in perf_counter seconds, and the memo."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.calls: list[tuple[str, float, float]] = []
        self._memo: dict[Hashable, Any] = {}

    async def answer(self, source: str, key: Hashable, ask: Callable[[], Awaitable[T]]) -> T:
        started = time.perf_counter()
        await asyncio.sleep(self.delay_s)
        if key not in self._memo:
            self._memo[key] = await ask()
        answer: T = self._memo[key]
        self.calls.append((source, started, time.perf_counter()))
        return answer


class DelayedAlerts:
    def __init__(self, inner: AlertsSource, log: CallLog) -> None:
        self._inner, self._log = inner, log

    async def health(self) -> SourceHealth:
        return await self._inner.health()

    async def now(self) -> datetime:
        return await self._inner.now()

    async def active_alerts(self, *, limit: int) -> list[Alert]:
        key = ("active_alerts", limit)
        return await self._log.answer("alerts", key, lambda: self._inner.active_alerts(limit=limit))


class DelayedMetrics:
    def __init__(self, inner: MetricsSource, log: CallLog) -> None:
        self._inner, self._log = inner, log

    async def health(self) -> SourceHealth:
        return await self._inner.health()

    async def now(self) -> datetime:
        return await self._inner.now()

    async def list_series(self, *, match: str | None, window: TimeWindow, limit: int) -> list[SeriesRef]:
        key = ("list_series", match, window, limit)
        return await self._log.answer(
            "metrics", key, lambda: self._inner.list_series(match=match, window=window, limit=limit)
        )

    async def query_range(
        self, *, promql: str, window: TimeWindow, step_s: int, max_series: int
    ) -> list[Series]:
        key = ("query_range", promql, window, step_s, max_series)
        return await self._log.answer(
            "metrics",
            key,
            lambda: self._inner.query_range(
                promql=promql, window=window, step_s=step_s, max_series=max_series
            ),
        )

    async def query_instant(self, *, promql: str, at: datetime, max_series: int) -> list[Series]:
        key = ("query_instant", promql, at, max_series)
        return await self._log.answer(
            "metrics",
            key,
            lambda: self._inner.query_instant(promql=promql, at=at, max_series=max_series),
        )


class DelayedLogs:
    def __init__(self, inner: LogsSource, log: CallLog) -> None:
        self._inner, self._log = inner, log

    async def health(self) -> SourceHealth:
        return await self._inner.health()

    async def now(self) -> datetime:
        return await self._inner.now()

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        key = ("label_values", label, window, limit)
        return await self._log.answer(
            "logs", key, lambda: self._inner.label_values(label=label, window=window, limit=limit)
        )

    async def query_range(self, query: LogQuery) -> list[LogLine]:
        key = ("query_range", query)
        return await self._log.answer("logs", key, lambda: self._inner.query_range(query))


def delay_sources(sources: Any, log: CallLog) -> None:
    """Wrap the alerts, metrics and logs sources of a toolbox's `Sources` in place."""
    if sources.alerts is not None:
        sources.alerts = DelayedAlerts(sources.alerts, log)
    if sources.metrics is not None:
        sources.metrics = DelayedMetrics(sources.metrics, log)
    if sources.logs is not None:
        sources.logs = DelayedLogs(sources.logs, log)
