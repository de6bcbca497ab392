"""Prometheus's HTTP API as a MetricsSource and an AlertsSource (I/O and parsing only).

Uses `/api/v1/query`, `/api/v1/query_range`, `/api/v1/series`, `/api/v1/label/<name>/values`,
`/api/v1/metadata`, `/api/v1/rules`, `/api/v1/targets`, `/api/v1/alerts` and `/-/ready`, on one
shared httpx client, every response bounded by `HttpApi`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from tools.base import (
    Alert,
    EvidenceStatus,
    MetricMetadata,
    Rule,
    ScrapeTarget,
    Series,
    SeriesRef,
    SourceError,
    TimeWindow,
)
from tools.prometheus.http_api import HttpSource
from tools.prometheus.series import series_key

_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_EVERY_SERIES = '{__name__=~".+"}'
# A selector with an equality matcher on `instance`: the series of one scrape target.
_ONE_TARGET = re.compile(r'[{,]\s*instance\s*=\s*"')


class _RuleAlert(BaseModel):
    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    state: str
    active_at: datetime | None = Field(default=None, alias="activeAt")


class _AlertsData(BaseModel):
    alerts: list[_RuleAlert]


class _Rule(BaseModel):
    name: str
    type: str
    query: str
    health: str = ""
    labels: dict[str, str] = Field(default_factory=dict)
    alerts: list[_RuleAlert] = Field(default_factory=list)


class _RuleGroup(BaseModel):
    name: str
    rules: list[_Rule]


class _RulesData(BaseModel):
    groups: list[_RuleGroup]


class _Target(BaseModel):
    labels: dict[str, str]
    health: str
    scrape_url: str = Field(default="", alias="scrapeUrl")
    last_error: str = Field(default="", alias="lastError")
    last_scrape: datetime | None = Field(default=None, alias="lastScrape")


class _TargetsData(BaseModel):
    active_targets: list[_Target] = Field(alias="activeTargets")


class _Metadata(BaseModel):
    type: str = "unknown"
    help: str = ""
    unit: str = ""


class _MatrixSeries(BaseModel):
    metric: dict[str, str]
    values: list[tuple[float, float]] = Field(default_factory=list)


class _Matrix(BaseModel):
    result_type: Literal["matrix"] = Field(alias="resultType")
    result: list[_MatrixSeries]


class _VectorSample(BaseModel):
    metric: dict[str, str]
    value: tuple[float, float]


class _Vector(BaseModel):
    result_type: Literal["vector"] = Field(alias="resultType")
    result: list[_VectorSample]


class _Scalar(BaseModel):
    result_type: Literal["scalar"] = Field(alias="resultType")
    result: tuple[float, float]


_T = TypeVar("_T")
_ALERTS = TypeAdapter(_AlertsData)
_MATRIX = TypeAdapter(_Matrix)
# An instant query answers a vector or, for expressions such as `scalar(...)`, a scalar.
_INSTANT = TypeAdapter(Annotated[_Vector | _Scalar, Field(discriminator="result_type")])
_LABEL_SETS = TypeAdapter(list[dict[str, str]])
_STRINGS = TypeAdapter(list[str])
_RULES = TypeAdapter(_RulesData)
_TARGETS = TypeAdapter(_TargetsData)
_METADATA = TypeAdapter(dict[str, list[_Metadata]])


class PrometheusClient(HttpSource):
    """A Prometheus server: metrics (instant and range queries, series and label discovery) and
    rule alerts."""

    backend = "Prometheus"

    async def active_alerts(self, *, limit: int) -> list[Alert]:
        """Pending and firing alerts of the alerting rules, every instance."""
        data = _parse(_ALERTS, await self._api.get_data("/api/v1/alerts"))
        return [_alert(alert) for alert in data.alerts[:limit]]

    async def metric_names(self, *, match: Sequence[str], window: TimeWindow, limit: int) -> list[str]:
        """Names from the label-values index: its size is the number of names, not of series.

        Names under selectors that each pin one scrape target (`instance="..."`) are asked of PromQL
        instead: Prometheus 2.42 answers label values with `match[]` by walking the postings of every
        value of `__name__`, i.e. every series of the TSDB (2 ms at 10k series, 20-40 ms at 500k),
        while a query selects only the target's own series."""
        if match and all(_ONE_TARGET.search(selector) for selector in match):
            return sorted(await self._names_by_query(match, window))[:limit]
        params = [*(("match[]", selector) for selector in match), *_window_params(window)]
        raw = await self._api.get_data("/api/v1/label/__name__/values", params)
        values: list[str] = _parse(_STRINGS, raw)
        return sorted(values)[:limit]

    async def _names_by_query(self, match: Sequence[str], window: TimeWindow) -> set[str]:
        """Names of the series the selectors match that have a sample in the window (one series per
        name comes back, whatever the target's cardinality)."""
        seconds = max(1, round((window.end - window.start).total_seconds()))
        inner = " or ".join(f"last_over_time({selector}[{seconds}s])" for selector in match)
        params = [("query", f"group by (__name__) ({inner})"), ("time", f"{window.end.timestamp():.3f}")]
        answer = _parse(_INSTANT, await self._api.get_data("/api/v1/query", params))
        if isinstance(answer, _Scalar):
            return set()
        return {name for item in answer.result if (name := item.metric.get("__name__"))}

    async def metadata(self, *, metric: str) -> MetricMetadata | None:
        """The declared type, help and unit of one metric family (one entry asked for)."""
        params = [("metric", metric), ("limit", "1")]
        data = _parse(_METADATA, await self._api.get_data("/api/v1/metadata", params))
        entries = data.get(metric) or []
        if not entries:
            return None
        return MetricMetadata(type=entries[0].type, help=entries[0].help, unit=entries[0].unit)

    async def rules(self, *, limit: int) -> list[Rule]:
        """Alerting and recording rules with their expressions and current alerts, in file order."""
        data = _parse(_RULES, await self._api.get_data("/api/v1/rules"))
        rules = [
            Rule(
                name=rule.name,
                kind=rule.type,
                expr=rule.query,
                group=group.name,
                health=rule.health,
                labels=rule.labels,
                alerts=[_alert(alert) for alert in rule.alerts],
            )
            for group in data.groups
            for rule in group.rules
        ]
        return rules[:limit]

    async def targets(self, *, limit: int) -> list[ScrapeTarget]:
        """Active scrape targets and their health, sorted by job and instance."""
        data = _parse(_TARGETS, await self._api.get_data("/api/v1/targets", [("state", "active")]))
        targets = [
            ScrapeTarget(
                labels=target.labels,
                health=target.health,
                scrape_url=target.scrape_url,
                last_error=target.last_error,
                last_scrape=_instant(target.last_scrape),
            )
            for target in data.active_targets
        ]
        targets.sort(key=lambda t: (t.labels.get("job", ""), t.labels.get("instance", "")))
        return targets[:limit]

    async def list_series(self, *, match: str | None, window: TimeWindow, limit: int) -> list[SeriesRef]:
        params = [("match[]", match or _EVERY_SERIES), *_window_params(window)]
        raw = await self._api.get_data("/api/v1/series", params)
        refs = [_series_ref(labels) for labels in _parse(_LABEL_SETS, raw)]
        return sorted(refs, key=lambda ref: series_key(ref.metric, ref.labels))[:limit]

    async def label_names(self, *, window: TimeWindow, limit: int) -> list[str]:
        """Label names in the window, from the index (as many as there are names, not series)."""
        names: list[str] = _parse(
            _STRINGS, await self._api.get_data("/api/v1/labels", _window_params(window))
        )
        return sorted(names)[:limit]

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        """Distinct values of a label (`__name__` for metric names) in the window, sorted."""
        if not _LABEL_NAME.fullmatch(label):
            raise SourceError("not a valid label name", status=EvidenceStatus.REJECTED)
        raw = await self._api.get_data(f"/api/v1/label/{label}/values", _window_params(window))
        values: list[str] = _parse(_STRINGS, raw)
        return sorted(values)[:limit]

    async def query_range(
        self, *, promql: str, window: TimeWindow, step_s: int, max_series: int
    ) -> list[Series]:
        params = [("query", promql), *_window_params(window), ("step", str(step_s))]
        matrix = _parse(_MATRIX, await self._api.get_data("/api/v1/query_range", params))
        return _first(max_series, [_series(item.metric, item.values) for item in matrix.result])

    async def query_instant(self, *, promql: str, at: datetime, max_series: int) -> list[Series]:
        params = [("query", promql), ("time", f"{at.timestamp():.3f}")]
        answer = _parse(_INSTANT, await self._api.get_data("/api/v1/query", params))
        if isinstance(answer, _Scalar):
            return _first(max_series, [_series({}, [answer.result])])
        return _first(max_series, [_series(item.metric, [item.value]) for item in answer.result])


def _alert(alert: _RuleAlert) -> Alert:
    return Alert(
        labels=alert.labels,
        annotations=alert.annotations,
        starts_at=_instant(alert.active_at),
        ends_at=None,
        status=alert.state,
    )


def _window_params(window: TimeWindow) -> list[tuple[str, str]]:
    return [("start", f"{window.start.timestamp():.3f}"), ("end", f"{window.end.timestamp():.3f}")]


def _series(labels: dict[str, str], samples: list[tuple[float, float]]) -> Series:
    labels = dict(labels)
    metric = labels.pop("__name__", "")
    return Series(metric=metric, labels=labels, samples=samples)


def _first(count: int, series: list[Series]) -> list[Series]:
    """The first `count` series in the order both backends share."""
    return sorted(series, key=lambda item: series_key(item.metric, item.labels))[:count]


def _series_ref(labels: dict[str, str]) -> SeriesRef:
    labels = dict(labels)
    metric = labels.pop("__name__", "")
    return SeriesRef(metric=metric, labels=labels)


def _instant(value: datetime | None) -> datetime | None:
    # Prometheus spells "never" as Go's zero time, 0001-01-01T00:00:00Z.
    if value is None or value.year <= 1:
        return None
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def _parse(adapter: TypeAdapter[_T], raw: object) -> _T:
    try:
        return adapter.validate_python(raw)
    except ValidationError as error:
        raise SourceError("Prometheus returned an unexpected response") from error
