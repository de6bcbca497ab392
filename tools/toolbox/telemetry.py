"""Handlers of the telemetry tools: alerts, metric discovery and queries, log streams and lines."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any

from tools.base import (
    AlertsSource,
    LogLine,
    LogQuery,
    LogsSource,
    MetricsSource,
    Series,
    TimeWindow,
)
from tools.toolbox.args import (
    ListAlertsArgs,
    ListLogStreamsArgs,
    ListMetricsArgs,
    QueryLogsArgs,
    QueryMetricArgs,
    QueryPromqlArgs,
)
from tools.toolbox.bounds import clip_text, fitting_prefix, oversized_string_chars
from tools.toolbox.spec import Answer, ToolContext, duration, iso, rejected, require
from tools.toolbox.thinning import thin_to_fit

_MAX_MESSAGE_CHARS = 2_000
_EMPTY_LINES_BYTES = len('{"lines":[]}')
# Samples of one range query take at most this share of the result byte cap (labels need the rest).
_SAMPLES_SHARE = 0.25
_value = itemgetter(1)
# Rate windows cover a few steps so that sparse scrapes still yield a value per point.
_MIN_RATE_WINDOW_S = 300


async def list_alerts(ctx: ToolContext, args: ListAlertsArgs) -> Answer:
    source: AlertsSource = require(ctx.sources.alerts, "alerts")
    alerts = await source.active_alerts(limit=ctx.limits.max_alerts)
    if args.service is not None:
        alerts = [a for a in alerts if a.labels.get("service") == args.service]
    items = [
        {
            "labels": dict(a.labels),
            "annotations": dict(a.annotations),
            "startsAt": iso(a.starts_at),
            "endsAt": iso(a.ends_at),
            "status": a.status,
        }
        for a in alerts
    ]
    names = Counter(f"{a.labels.get('alertname', '?')}@{a.labels.get('service', '?')}" for a in alerts)
    firing = sum(1 for a in alerts if a.status == "firing")
    listed = ", ".join(f"{name} x{count}" for name, count in names.most_common())
    scope = f" for service {args.service}" if args.service else ""
    return Answer(
        title=f"Active alerts{scope}",
        summary=f"{len(items)} alerts ({firing} firing){scope}: {listed or 'none'}",
        data={"alerts": items, "total": len(items)},
        query={"service": args.service},
        empty=not items,
        truncated=len(alerts) >= ctx.limits.max_alerts,
    )


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
        query={"match": match, **_window_query(window)},
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
        query={"promql": promql, "step_seconds": step_s, **_window_query(window)},
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


async def list_log_streams(ctx: ToolContext, args: ListLogStreamsArgs) -> Answer:
    source: LogsSource = require(ctx.sources.logs, "logs")
    window = ctx.window(args.window_minutes)
    limit = ctx.limits.max_discovery_items
    values = await source.label_values(label=args.label, window=window, limit=limit)
    return Answer(
        title=f"Log streams by {args.label}",
        summary=f"{len(values)} values of label {args.label}: {', '.join(values)}",
        data={"label": args.label, "values": list(values[:limit])},
        query={"label": args.label, **_window_query(window)},
        empty=not values,
        truncated=len(values) >= limit,
    )


async def query_logs(ctx: ToolContext, args: QueryLogsArgs) -> Answer:
    source: LogsSource = require(ctx.sources.logs, "logs")
    window = ctx.window(args.window_minutes)
    limit = min(args.limit or ctx.limits.max_log_lines, ctx.limits.max_log_lines)
    query = LogQuery(
        window=window,
        limit=limit,
        service=args.service,
        level=args.level,
        contains=args.contains,
        native=args.native_query,
    )
    lines = await source.query_range(query)
    kept = lines[:limit]
    items, cut = _items_within(kept, ctx.limits.max_result_bytes)
    levels = Counter(line.labels.get("level", "?") for line in kept)
    by_level = ", ".join(f"{level} {count}" for level, count in levels.most_common())
    span = f" from {iso(kept[0].ts)} to {iso(kept[-1].ts)}" if kept else ""
    # The summary describes every line the backend returned, as when the boundary cut the data.
    return Answer(
        title=f"Logs{f' of {args.service}' if args.service else ''}",
        summary=f"{len(kept)} log lines{span}" + (f" ({by_level})" if by_level else ""),
        data={"lines": items},
        query={"limit": limit, **_window_query(window)},
        empty=not kept,
        truncated=len(lines) >= limit,
        cut=cut,
    )


def _items_within(lines: Sequence[LogLine], max_bytes: int) -> tuple[list[dict[str, Any]], bool]:
    """The first lines as items, as many as fit in `max_bytes` of `{"lines": [...]}` JSON, and
    whether any was left out.

    Measured here, item by item, the result reaches the boundary already fitting: cutting it there
    meant clipping and re-measuring a 64 KB structure on the event loop for every log query. When
    lines must go, messages are first clipped as the boundary clips the strings of an oversized
    result, so a small cap keeps as many lines as it did.
    """
    items, cut = fitting_prefix(_items(lines, _MAX_MESSAGE_CHARS), max_bytes, used=_EMPTY_LINES_BYTES)
    clipped = oversized_string_chars(max_bytes)
    if cut and clipped < _MAX_MESSAGE_CHARS:
        items, cut = fitting_prefix(_items(lines, clipped), max_bytes, used=_EMPTY_LINES_BYTES)
    return items, cut


def _items(lines: Sequence[LogLine], max_chars: int) -> Iterator[dict[str, Any]]:
    for line in lines:
        yield {"ts": iso(line.ts), "labels": dict(line.labels), "message": clip_text(line.message, max_chars)}


def _window_query(window: TimeWindow) -> Mapping[str, Any]:
    return {"start": iso(window.start), "end": iso(window.end)}
