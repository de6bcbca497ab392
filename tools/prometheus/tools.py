"""Prometheus' tools: metric discovery and search, typed reads, common signals, rules, scrape targets
and PromQL range and instant queries."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import timedelta
from operator import itemgetter
from typing import Annotated, Literal

from pydantic import Field

from tools.base import (
    EvidenceSource,
    MetricMetadata,
    MetricsCatalog,
    MetricsSource,
    Series,
    SourceError,
    TimeWindow,
)
from tools.prometheus import alert_history, catalog_tools
from tools.prometheus.discovery import Candidate, Kind, family_of, kind_of, read_name, read_promql
from tools.prometheus.instant import QueryPromqlInstantArgs, query_promql_instant
from tools.prometheus.metric_discovery import (
    ListMetricsArgs,
    SearchMetricsArgs,
    found_reads,
    list_metrics,
    search_metrics,
    stack_of,
)
from tools.prometheus.selector import SelectorError, parse_filter
from tools.toolbox.args import LabelName, Name, ToolArgs, Window
from tools.toolbox.spec import Answer, ToolContext, ToolSpec, duration, rejected, require, window_query
from tools.toolbox.thinning import thin_to_fit

Signal = Literal["error_rate", "latency_p99", "saturation", "cpu", "memory", "connections"]
# Samples of one range query take at most this share of the result byte cap (labels need the rest).
_SAMPLES_SHARE = 0.25
_value = itemgetter(1)
# Rate windows cover a few steps so that sparse scrapes still yield a value per point.
_MIN_RATE_WINDOW_S = 300


class QueryMetricArgs(ToolArgs):
    service: Name = Field(description="the service label value")
    signal: Signal = Field(description="which common signal to query")
    window_minutes: Window | None = None


class QueryPromqlArgs(ToolArgs):
    promql: str = Field(min_length=1, max_length=10_000, description="a PromQL expression")
    window_minutes: Window | None = None
    step_seconds: Annotated[int, Field(ge=1, le=86_400)] | None = None


async def query_metric(ctx: ToolContext, args: QueryMetricArgs) -> Answer:
    template = ctx.limits.metric_templates.get(args.signal)
    if template is None:
        raise rejected(f"no query template is configured for signal {args.signal}")
    window = ctx.window(args.window_minutes)
    step_s = ctx.step_for(window, None)
    rate_window = duration(max(4 * step_s, _MIN_RATE_WINDOW_S))
    promql = template.format(service=args.service, window=rate_window)
    answer = await _range(ctx, promql, window, step_s)
    title = f"{args.signal} of {args.service}"
    return Answer(
        title=title,
        summary=f"{title}: {answer.summary}",
        data=answer.data,
        query={"service": args.service, "signal": args.signal, **answer.query},
        empty=answer.empty,
        truncated=answer.truncated,
    )


async def query_promql(ctx: ToolContext, args: QueryPromqlArgs) -> Answer:
    if len(args.promql) > ctx.limits.max_promql_chars:
        raise rejected(f"promql must be at most {ctx.limits.max_promql_chars} characters")
    window = ctx.window(args.window_minutes)
    step_s = ctx.step_for(window, args.step_seconds)
    answer = await _range(ctx, args.promql, window, step_s)
    return Answer(
        title="PromQL range query",
        summary=answer.summary,
        data=answer.data,
        query=answer.query,
        empty=answer.empty,
        truncated=answer.truncated,
    )


async def _range(ctx: ToolContext, promql: str, window: TimeWindow, step_s: int, *, name: str = "") -> Answer:
    source: MetricsSource = require(ctx.sources.metrics, "metrics")
    limits = ctx.limits
    series = await source.query_range(
        promql=promql, window=window, step_s=step_s, max_series=limits.max_series
    )
    if name:
        # A rate or an aggregation drops the metric name; the read's name says what the values are.
        series = [s if s.metric else Series(metric=name, labels=s.labels, samples=s.samples) for s in series]
    kept = series[: limits.max_series]
    points = [_finite(s.samples)[-limits.max_points_per_series :] for s in kept]
    cut_points = any(len(s.samples) > limits.max_points_per_series for s in kept)
    cut_points |= thin_to_fit(points, int(limits.max_result_bytes * _SAMPLES_SHARE))
    # Thinning keeps each series' lowest, highest and newest point: the same figures, fewer to read.
    summary = _series_summary(kept, points)
    items = [
        {"metric": s.metric, "labels": dict(s.labels), "samples": [[t, v] for t, v in samples]}
        for s, samples in zip(kept, points, strict=True)
    ]
    return Answer(
        title="",
        summary=summary,
        data={"series": items},
        query={"promql": promql, "step_seconds": step_s, **window_query(window)},
        empty=not any(points),
        truncated=len(series) > limits.max_series or cut_points,
    )


def _finite(samples: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points with a reading: non-finite ones (0/0 rates) carry none and are not valid JSON."""
    # One C-speed sum settles the usual case (every value finite) without a Python-level test per point.
    if math.isfinite(sum(map(_value, samples))):
        return list(samples)
    return [p for p in samples if math.isfinite(p[1])]


def _series_summary(series: Sequence[Series], points: Sequence[Sequence[tuple[float, float]]]) -> str:
    parts = []
    for s, finite in zip(series[:5], points, strict=False):
        labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
        if finite:
            low, high = min(map(_value, finite)), max(map(_value, finite))
            parts.append(f"{s.metric}{{{labels}}} last {finite[-1][1]:.4g}, min {low:.4g}, max {high:.4g}")
        else:
            parts.append(f"{s.metric}{{{labels}}} no samples")
    return f"{len(series)} series; " + "; ".join(parts)


class ReadMetricArgs(ToolArgs):
    metric: Name = Field(description="a metric name (a histogram's _bucket series or its family)")
    kind: Kind | None = Field(default=None, description="counter, gauge, histogram or summary")
    matchers: Annotated[dict[LabelName, Annotated[str, Field(max_length=256)]], Field(max_length=8)] = Field(
        default_factory=dict, description="label=value matchers, e.g. the alert's instance"
    )
    window_minutes: Window | None = None
    filters: Annotated[list[Annotated[str, Field(max_length=256)]], Field(max_length=4)] = Field(
        default_factory=list, description='other matchers of an alert rule, e.g. status=~"5.."'
    )
    rate_seconds: Annotated[int, Field(ge=1, le=86_400)] | None = Field(
        default=None, description="rate() range in seconds for counters and histograms (an alert rule's)"
    )
    # Recorded in the result's query with the other arguments: the digest compares a read of the past
    # with today's moves and never scans it for moves of its own.
    days_before: Annotated[int, Field(ge=1, le=7)] | None = Field(
        default=None, description="the same window this many days earlier (is a move a daily rhythm?)"
    )


async def read_metric(ctx: ToolContext, args: ReadMetricArgs) -> Answer:
    """A metric read by its type: counters as rates, histograms as p99, gauges as levels, with
    the identity labels kept; the monitoring stack's jobs are left out unless the metric is theirs."""
    stack = stack_of(ctx)
    kind = args.kind or kind_of(args.metric, await _metadata_of(ctx, args.metric))
    window = ctx.window(args.window_minutes)
    if args.days_before:
        back = timedelta(days=args.days_before)
        window = TimeWindow(start=window.start - back, end=window.end - back)
    step_s = ctx.step_for(window, None)
    # The rate range of an alert's rule when given: a five-minute rate hides a move seconds old
    # that the rule's own `[10s]` already fires on.
    rate_window = duration(args.rate_seconds or max(4 * step_s, _MIN_RATE_WINDOW_S))
    try:
        filters = tuple(parse_filter(text) for text in args.filters)
    except SelectorError as error:
        raise rejected(f"filters: {error}") from None
    candidate = Candidate(args.metric, "asked", dict(args.matchers), filters=filters)
    keep = stack.owns(args.metric)
    promql = read_promql(
        candidate, kind, rate_window=rate_window, stack=None if keep else stack, identity=ctx.limits.identity
    )
    answer = await _range(ctx, promql, window, step_s, name=read_name(args.metric, kind))
    title = f"{read_name(args.metric, kind)} ({kind})"
    return Answer(
        title=title,
        summary=f"{title}: {answer.summary}",
        data=answer.data,
        query={"metric": args.metric, "kind": kind, **answer.query},
        empty=answer.empty,
        truncated=answer.truncated,
    )


async def _metadata_of(ctx: ToolContext, metric: str) -> MetricMetadata | None:
    source = require(ctx.sources.metrics, "metrics")
    if not isinstance(source, MetricsCatalog):
        return None
    try:
        return await source.metadata(metric=family_of(metric))
    except SourceError:
        return None


TOOLS = (
    ToolSpec(
        "list_metrics",
        EvidenceSource.METRICS,
        ListMetricsArgs,
        "Choose the metrics to read for a question: firing alerts' rule metrics first, then names "
        "matching the question or the implicated systems, each with its type and a typed PromQL read.",
        list_metrics,
        lane="signals",
        role="discovery",
        finds=found_reads,
        key_source=True,
    ),
    ToolSpec(
        "read_metric",
        EvidenceSource.METRICS,
        ReadMetricArgs,
        "One metric read by its type (counter as rate, histogram as p99, gauge as level), narrowed "
        "by label matchers, aggregated by the identity labels.",
        read_metric,
        lane="signals",
        key_source=True,
    ),
    ToolSpec(
        "search_metrics",
        EvidenceSource.METRICS,
        SearchMetricsArgs,
        "Metric names matching a regex, with type, help and unit.",
        search_metrics,
        lane="signals",
    ),
    *catalog_tools.TOOLS,
    *alert_history.TOOLS,
    ToolSpec(
        "query_metric",
        EvidenceSource.METRICS,
        QueryMetricArgs,
        "A common signal (error_rate, latency_p99, saturation, cpu, memory, connections) of a service.",
        query_metric,
        lane="signals",
        key_source=True,
    ),
    ToolSpec(
        "query_promql",
        EvidenceSource.METRICS,
        QueryPromqlArgs,
        "A PromQL expression over a bounded window and step.",
        query_promql,
        lane="signals",
        key_source=True,
    ),
    ToolSpec(
        "query_promql_instant",
        EvidenceSource.METRICS,
        QueryPromqlInstantArgs,
        "A PromQL expression's value now or some minutes ago.",
        query_promql_instant,
        lane="signals",
        key_source=True,
    ),
)
