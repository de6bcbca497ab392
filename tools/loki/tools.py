"""Loki's tools: log stream discovery and log lines, asked as a neutral `LogQuery`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field

from tools.base import (
    STATUS_SPELLING,
    EvidenceSource,
    LogLine,
    LogQuery,
    LogsSource,
    StatusClass,
    TimeWindow,
)
from tools.toolbox.args import LabelName, Name, ToolArgs, Window
from tools.toolbox.bounds import clip_text, fitting_prefix, oversized_string_chars
from tools.toolbox.spec import Answer, Found, ToolContext, ToolSpec, iso, require, window_query

Level = Literal["debug", "info", "warn", "warning", "error", "fatal", "critical"]
# Stream labels whose values name services.
SERVICE_LABELS = frozenset({"service", "service_name", "app", "application", "job", "container"})
_MAX_MESSAGE_CHARS = 2_000
_EMPTY_LINES_BYTES = len('{"lines":[]}')
_FIRST_SHARE = 5  # a fifth of the lines (and bytes) for the window's first lines, when asked
_STATUS_DESCRIPTION = 'lines recording an HTTP status of the class ("5xx") or that status ("504")'
_SINCE_DESCRIPTION = 'the window\'s start, RFC 3339 ("since 14:00"), instead of window_minutes'
_UNTIL_DESCRIPTION = "the window's end, RFC 3339, instead of now (the lines before the trouble began)"
# Lines a count reads at most: Loki's default `max_entries_limit_per_query`.
MAX_COUNTED_LINES = 5_000


class ListLogStreamsArgs(ToolArgs):
    label: Name = Field(default="service", description="the stream label whose values to list")
    window_minutes: Window | None = None


class CountLogsArgs(ToolArgs):
    """The neutral filters of a log read (what `count_logs` takes; `query_logs` adds its own)."""

    service: Name | None = None
    contains: str | None = Field(default=None, min_length=1, max_length=200)
    any_case: bool = Field(default=False, description="match `contains` in any case (Election, ELECTION)")
    level: Level | None = None
    labels: Annotated[dict[LabelName, Annotated[str, Field(max_length=256)]], Field(max_length=8)] = Field(
        default_factory=dict, description="other stream labels that must equal these values, e.g. namespace"
    )
    status_class: StatusClass | None = Field(
        default=None, pattern=STATUS_SPELLING, description=_STATUS_DESCRIPTION
    )
    window_minutes: Window | None = None
    since: AwareDatetime | None = Field(default=None, description=_SINCE_DESCRIPTION)
    until: AwareDatetime | None = Field(default=None, description=_UNTIL_DESCRIPTION)
    other_than: Name | None = Field(
        default=None, description="leave out this service's own lines (what other streams say about it)"
    )


class QueryLogsArgs(CountLogsArgs):
    native_query: str | None = Field(
        default=None,
        min_length=1,
        max_length=2_000,
        description="a query in the log backend's own language (LogQL on Loki), instead of the filters",
    )
    limit: Annotated[int, Field(ge=1, le=5_000)] | None = None
    first_lines: bool = Field(
        default=False,
        description="also the window's first lines when the newest fill the limit (when it began)",
    )


def _log_query(args: CountLogsArgs, window: TimeWindow, limit: int, native: str | None = None) -> LogQuery:
    return LogQuery(
        window=window,
        limit=limit,
        service=args.service,
        level=args.level,
        contains=args.contains,
        any_case=args.any_case,
        native=native,
        labels=dict(args.labels),
        status_class=args.status_class,
        other_than=args.other_than,
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
    window = ctx.window(args.window_minutes, args.since, args.until)
    limit = min(args.limit or ctx.limits.max_log_lines, ctx.limits.max_log_lines)
    query = _log_query(args, window, limit, args.native_query)
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


async def count_logs(ctx: ToolContext, args: CountLogsArgs) -> Answer:
    """How many lines match, read whole up to `MAX_COUNTED_LINES` (a count past it says "at least"),
    with the first and last matching line's time: the answer to "how many errors since 14:00?"."""
    source: LogsSource = require(ctx.sources.logs, "logs")
    window = ctx.window(args.window_minutes, args.since, args.until)
    lines = await source.query_range(_log_query(args, window, MAX_COUNTED_LINES))
    capped = len(lines) >= MAX_COUNTED_LINES
    times = sorted(line.ts for line in lines)
    count = f"{'at least ' if capped else ''}{len(lines)}"
    return Answer(
        title=f"Log line count{f' of {args.service}' if args.service else ''}",
        summary=f"{count} matching log lines"
        + (f" from {iso(times[0])} to {iso(times[-1])}" if times else ""),
        data={
            "count": len(lines),
            "at_least": capped,
            "first": iso(times[0]) if times else None,
            "last": iso(times[-1]) if times else None,
            "by_level": dict(Counter(line.labels.get("level", "?") for line in lines).most_common()),
        },
        query=window_query(window),
        empty=not lines,
        truncated=capped,
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
    ToolSpec(
        "count_logs",
        EvidenceSource.LOGS,
        CountLogsArgs,
        "How many of a service's log lines match a text, level or HTTP status class in a window.",
        count_logs,
        lane="logs",
        role="lookup",
    ),
)
