"""What a tool is (name, source, arguments, handler, lane, role) and what a handler gets and returns."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeVar

import orjson
from pydantic import BaseModel

from tools.base import EvidenceSource, EvidenceStatus, SourceError, Sources, TimeWindow
from tools.limits import ToolLimits


@dataclass(frozen=True, slots=True)
class Answer:
    """A handler's result before bounding: `empty` means the source answered with nothing,
    `truncated` that the source had more, `cut` that the handler already cut `data` to the byte cap
    (the boundary marks the summary as it does when it cuts)."""

    title: str
    summary: str
    data: Mapping[str, Any]
    query: Mapping[str, Any] = field(default_factory=dict)
    empty: bool = False
    truncated: bool = False
    cut: bool = False


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What one call may use: the sources, the limits, the frozen `now` of this call and the
    principal of the run that made it (None without authentication)."""

    sources: Sources
    limits: ToolLimits
    now: datetime
    principal: str | None = None

    def window(
        self, minutes: int | None, since: datetime | None = None, until: datetime | None = None
    ) -> TimeWindow:
        """[now - minutes, now], or [since, now] when a start is given ("since 14:00"), ending at
        `until` instead of now when one is given ("the lines before the trouble began"); refused past
        the configured maximum range or when the window would be empty."""
        if since is not None:
            if not self.now - timedelta(minutes=self.limits.max_range_minutes) <= since < self.now:
                raise rejected(f"since must be within the last {self.limits.max_range_minutes} minutes")
            start = since
        else:
            span = minutes or self.limits.default_window_minutes
            if span > self.limits.max_range_minutes:
                raise rejected(f"window_minutes must be at most {self.limits.max_range_minutes}")
            start = self.now - timedelta(minutes=span)
        if until is None:
            return TimeWindow(start=start, end=self.now)
        if not start < until <= self.now:
            raise rejected("until must be after the window's start and not after now")
        return TimeWindow(start=start, end=until)

    def step_for(self, window: TimeWindow, requested_s: int | None) -> int:
        """A step no finer than the minimum and coarse enough to bound points per series."""
        if requested_s is not None and requested_s < self.limits.min_step_seconds:
            raise rejected(f"step_seconds must be at least {self.limits.min_step_seconds}")
        span_s = (window.end - window.start).total_seconds()
        bounded = math.ceil(span_s / self.limits.max_points_per_series)
        return max(self.limits.min_step_seconds, requested_s or 0, bounded)


_S = TypeVar("_S")

Handler = Callable[[ToolContext, Any], Awaitable[Answer]]
# The executor lane a tool runs in: live signals (alerts, metrics), logs, or knowledge (records).
Lane = Literal["signals", "logs", "knowledge"]
# "discovery" tools only list names (series, streams, tables, runbooks) for planning the next round;
# "query" tools answer with evidence to cite; "lookup" tools too, for data questions only (a count
# of lines), so diagnosis planners are not offered them.
Role = Literal["discovery", "query", "lookup"]


@dataclass(frozen=True, slots=True)
class Found:
    """The names one successful call found, read from its bounded data: `metrics` holds
    (metric, labels) pairs in answer order, `services` every service named (log streams apart)."""

    metrics: tuple[tuple[str, Mapping[str, str]], ...] = ()
    log_services: tuple[str, ...] = ()
    tables: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    runbooks: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    # Typed metric reads (`read_metric` arguments: metric, kind, matchers), best first.
    reads: tuple[Mapping[str, Any], ...] = ()


Finder = Callable[[Mapping[str, Any]], Found]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool of the boundary, declared once beside its source; everything that sorts tools
    (lanes, discovery, key sources, clock and health lists, planners' tool lists) reads it.

    `source` names both the evidence source and the `Sources` field. `finds` reads the names a
    successful answer holds (None: it names nothing for planning). A failing `key_source` tool
    caps the diagnosis' confidence; key sources are the live telemetry, whose clock is the run's.
    """

    name: str
    source: EvidenceSource
    args: type[BaseModel]
    description: str
    handler: Handler
    lane: Lane
    role: Role = "query"
    finds: Finder | None = None
    key_source: bool = False


def rejected(message: str) -> SourceError:
    """A refusal of the caller's arguments, with a message safe to show."""
    return SourceError(message, status=EvidenceStatus.REJECTED)


def iso(moment: datetime | None) -> str | None:
    """RFC 3339 text of `moment`, UTC written as "Z"."""
    if moment is None:
        return None
    if type(moment) is datetime and moment.tzinfo is UTC:  # orjson refuses datetime subclasses
        # The same text as below, faster (bench/README.md): a log result formats hundreds of these on the
        # event loop, and every source normalises its times to UTC.
        return orjson.dumps(moment, option=orjson.OPT_UTC_Z)[1:-1].decode()
    return moment.isoformat().replace("+00:00", "Z")


def window_query(window: TimeWindow) -> Mapping[str, Any]:
    """The window as recorded in a result's query: RFC 3339 start and end."""
    return {"start": iso(window.start), "end": iso(window.end)}


def duration(seconds: int) -> str:
    """A PromQL range literal: `5m` when whole minutes, else `90s`."""
    return f"{seconds // 60}m" if seconds % 60 == 0 else f"{seconds}s"


def require(source: _S | None, name: str) -> _S:
    """The configured source, or an UNAVAILABLE refusal."""
    if source is None:
        raise SourceError(f"the {name} source is not configured", status=EvidenceStatus.UNAVAILABLE)
    return source
