"""Prometheus' tools: metric discovery, common signals and PromQL range and instant queries."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Annotated, Any, Literal

from pydantic import Field

from tools.base import EvidenceSource, MetricsSource, Series, TimeWindow
from tools.prometheus.instant import QueryPromqlInstantArgs, query_promql_instant
from tools.toolbox.args import Name, ToolArgs, Window, mappings, text_labels
from tools.toolbox.spec import Answer, Found, ToolContext, ToolSpec, duration, rejected, require, window_query
from tools.toolbox.thinning import thin_to_fit

Signal = Literal["error_rate", "latency_p99", "saturation", "cpu", "memory", "connections"]
# Samples of one range query take at most this share of the result byte cap (labels need the rest).
_SAMPLES_SHARE = 0.25
_value = itemgetter(1)
# Rate windows cover a few steps so that sparse scrapes still yield a value per point.
_MIN_RATE_WINDOW_S = 300


class ListMetricsArgs(ToolArgs):
    service: Name | None = Field(default=None, description="only series with this service label")
    window_minutes: Window | None = None


class QueryMetricArgs(ToolArgs):
    service: Name = Field(description="the service label value")
    signal: Signal = Field(description="which common signal to query")
    window_minutes: Window | None = None


class QueryPromqlArgs(ToolArgs):
    promql: str = Field(min_length=1, max_length=10_000, description="a PromQL expression")
    window_minutes: Window | None = None
    step_seconds: Annotated[int, Field(ge=1, le=86_400)] | None = None


async def list_metrics(ctx: ToolContext, args: ListMetricsArgs) -> Answer:
    source: MetricsSource = require(ctx.sources.metrics, "metrics")
    window = ctx.window(args.window_minutes)
    match = None if args.service is None else f'{{service="{args.service}"}}'
    limit = ctx.limits.max_discovery_items
    refs = await source.list_series(match=match, window=window, limit=limit)
    names = sorted({ref.metric for ref in refs})
    scope = f" for service {args.service}" if args.service else ""
    return Answer(
        title=f"Metric series{scope}",
        summary=f"{len(refs)} series of {len(names)} metrics{scope}: {', '.join(names)}",
        data={"series": [{"metric": r.metric, "labels": dict(r.labels)} for r in refs[:limit]]},
        query={"match": match, **window_query(window)},
        empty=not refs,
        truncated=len(refs) >= limit,
    )


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


async def _range(ctx: ToolContext, promql: str, window: TimeWindow, step_s: int) -> Answer:
    source: MetricsSource = require(ctx.sources.metrics, "metrics")
    limits = ctx.limits
    series = await source.query_range(
        promql=promql, window=window, step_s=step_s, max_series=limits.max_series
    )
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


def found_series(data: Mapping[str, Any]) -> Found:
    """The (metric, labels) pairs a series listing names."""
    return Found(
        metrics=tuple(
            (str(ref.get("metric", "")), text_labels(ref.get("labels")))
            for ref in mappings(data.get("series"))
        )
    )


TOOLS = (
    ToolSpec(
        "list_metrics",
        EvidenceSource.METRICS,
        ListMetricsArgs,
        "Discover which metric series exist, optionally for one service.",
        list_metrics,
        lane="signals",
        role="discovery",
        finds=found_series,
        key_source=True,
    ),
    ToolSpec(
        "query_metric",
        EvidenceSource.METRICS,
        QueryMetricArgs,
        "Range query of a common signal (error_rate, latency_p99, saturation, cpu, memory, "
        "connections) of one service.",
        query_metric,
        lane="signals",
        key_source=True,
    ),
    ToolSpec(
        "query_promql",
        EvidenceSource.METRICS,
        QueryPromqlArgs,
        "Range query of a raw PromQL expression over a bounded window and step.",
        query_promql,
        lane="signals",
        key_source=True,
    ),
    ToolSpec(
        "query_promql_instant",
        EvidenceSource.METRICS,
        QueryPromqlInstantArgs,
        "Instant query of a raw PromQL expression, now or a bounded number of minutes ago.",
        query_promql_instant,
        lane="signals",
        key_source=True,
    ),
)
