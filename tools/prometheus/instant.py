"""Handler of the instant PromQL tool: one expression evaluated at one bounded moment."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from pydantic import Field

from tools.base import MetricsSource, Series
from tools.toolbox.args import MinutesAgo, ToolArgs
from tools.toolbox.spec import Answer, ToolContext, iso, rejected, require

# Series named in the summary; the data holds every kept series.
_SUMMARY_SERIES = 5


class QueryPromqlInstantArgs(ToolArgs):
    promql: str = Field(min_length=1, max_length=10_000, description="a PromQL expression")
    at_minutes_ago: MinutesAgo | None = None


async def query_promql_instant(ctx: ToolContext, args: QueryPromqlInstantArgs) -> Answer:
    """Evaluate `args.promql` at now, or `at_minutes_ago` before it, within the range bound."""
    limits = ctx.limits
    if len(args.promql) > limits.max_promql_chars:
        raise rejected(f"promql must be at most {limits.max_promql_chars} characters")
    minutes_ago = args.at_minutes_ago or 0
    if minutes_ago > limits.max_range_minutes:
        raise rejected(f"at_minutes_ago must be at most {limits.max_range_minutes}")
    at = ctx.now - timedelta(minutes=minutes_ago)
    source: MetricsSource = require(ctx.sources.metrics, "metrics")
    # One series more than kept tells a full answer from a cut one.
    series = await source.query_instant(promql=args.promql, at=at, max_series=limits.max_series + 1)
    kept = series[: limits.max_series]
    items = [_series_item(s) for s in kept]
    return Answer(
        title="PromQL instant query",
        summary=_summary(kept, at),
        data={"series": items},
        query={"promql": args.promql, "at": iso(at)},
        empty=not any(item["samples"] for item in items),
        truncated=len(series) > limits.max_series,
    )


def _series_item(series: Series) -> dict[str, Any]:
    # Non-finite values (0/0 ratios) carry no reading and are not valid JSON, as in range queries.
    samples = [[t, v] for t, v in series.samples if math.isfinite(v)][-1:]
    return {"metric": series.metric, "labels": dict(series.labels), "samples": samples}


def _summary(series: list[Series], at: datetime) -> str:
    parts = []
    for s in series[:_SUMMARY_SERIES]:
        labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
        values = [v for _, v in s.samples if math.isfinite(v)]
        reading = f"= {values[-1]:.4g}" if values else "no value"
        parts.append(f"{s.metric}{{{labels}}} {reading}")
    return f"{len(series)} series at {iso(at)}" + ("; " + "; ".join(parts) if parts else "")
