"""Loki's tools: log stream discovery and log lines, asked as a neutral `LogQuery`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import Field

from tools.base import EvidenceSource, LogLine, LogQuery, LogsSource
from tools.toolbox.args import LabelName, Name, ToolArgs, Window
from tools.toolbox.bounds import clip_text, fitting_prefix, oversized_string_chars
from tools.toolbox.spec import Answer, Found, ToolContext, ToolSpec, iso, require, window_query

Level = Literal["debug", "info", "warn", "warning", "error", "fatal", "critical"]
# Stream labels whose values name services.
SERVICE_LABELS = frozenset({"service", "service_name", "app", "application", "job", "container"})
_MAX_MESSAGE_CHARS = 2_000
_EMPTY_LINES_BYTES = len('{"lines":[]}')
_FIRST_SHARE = 5  # a fifth of the lines (and bytes) for the window's first lines, when asked


class ListLogStreamsArgs(ToolArgs):
    label: Name = Field(default="service", description="the stream label whose values to list")
    window_minutes: Window | None = None


class QueryLogsArgs(ToolArgs):
    service: Name | None = None
    contains: str | None = Field(default=None, min_length=1, max_length=200)
    level: Level | None = None
    labels: Annotated[dict[LabelName, Annotated[str, Field(max_length=256)]], Field(max_length=8)] = Field(
        default_factory=dict, description="other stream labels that must equal these values, e.g. namespace"
    )
    native_query: str | None = Field(
        default=None,
        min_length=1,
        max_length=2_000,
        description="a query in the log backend's own language (LogQL on Loki), instead of the filters",
    )
    window_minutes: Window | None = None
    limit: Annotated[int, Field(ge=1, le=5_000)] | None = None
    first_lines: bool = Field(
        default=False,
        description="also the window's first lines when the newest fill the limit (when it began)",
    )


async def list_log_streams(ctx: ToolContext, args: ListLogStreamsArgs) -> Answer:
    source: LogsSource = require(ctx.sources.logs, "logs")
    window = ctx.window(args.window_minutes)
    limit = ctx.limits.max_discovery_items
    values = await source.label_values(label=args.label, window=window, limit=limit)
    return Answer(
        title=f"Log streams by {args.label}",
        summary=f"{len(values)} values of label {args.label}: {', '.join(values)}",
        data={"label": args.label, "values": list(values[:limit])},
        query={"label": args.label, **window_query(window)},
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
        labels=dict(args.labels),
    )
    lines = await source.query_range(query)
    kept = lines[:limit]
    first: list[LogLine] = []
    if args.first_lines and len(lines) >= limit and limit >= _FIRST_SHARE:
        # A busy stream's newest lines all postdate the onset: a share of the lines goes to the
        # window's first ones, so a diagnosis sees when the trouble began, not when the cap bit.
        oldest = await source.query_range(replace(query, limit=limit // _FIRST_SHARE, oldest_first=True))
        kept = kept[: limit - len(oldest)]
        seen = {(line.ts, line.message) for line in kept}
        first = [line for line in reversed(oldest) if (line.ts, line.message) not in seen]
    reserve = ctx.limits.max_result_bytes // _FIRST_SHARE if first else 0
    items, cut = _items_within(kept, ctx.limits.max_result_bytes - reserve)
    if first:
        first_items, first_cut = _items_within(first, reserve - _EMPTY_LINES_BYTES)
        items, cut, kept = items + first_items, cut or first_cut, kept + first
    levels = Counter(line.labels.get("level", "?") for line in kept)
    by_level = ", ".join(f"{level} {count}" for level, count in levels.most_common())
    span = f" from {iso(kept[0].ts)} to {iso(kept[-1].ts)}" if kept else ""
    # The summary describes every line the backend returned, as when the boundary cut the data.
    return Answer(
        title=f"Logs{f' of {args.service}' if args.service else ''}",
        summary=f"{len(kept)} log lines{span}" + (f" ({by_level})" if by_level else ""),
        data={"lines": items},
        query={"limit": limit, **window_query(window)},
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


def found_streams(data: Mapping[str, Any]) -> Found:
    """The services a stream listing names, when the listed label is a service label."""
    if str(data.get("label", "")) not in SERVICE_LABELS:
        return Found()
    return Found(log_services=tuple(str(value) for value in data.get("values") or []))


TOOLS = (
    ToolSpec(
        "list_log_streams",
        EvidenceSource.LOGS,
        ListLogStreamsArgs,
        "Discover log streams: the values of a stream label (default: service).",
        list_log_streams,
        lane="logs",
        role="discovery",
        finds=found_streams,
        key_source=True,
    ),
    ToolSpec(
        "query_logs",
        EvidenceSource.LOGS,
        QueryLogsArgs,
        "A service's log lines, by text or level, or by a native query.",
        query_logs,
        lane="logs",
        key_source=True,
    ),
)
