"""Loki's HTTP API as a LogsSource (I/O, parsing and the translation of a neutral query to LogQL).

`/loki/api/v1/query_range` (direction backward, nanosecond start/end, a line limit),
`/loki/api/v1/label/<name>/values` and `/ready`, every response bounded by `HttpApi`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from tools.base import EvidenceStatus, LogLine, LogQuery, SourceError, TimeWindow, status_pattern
from tools.prometheus.http_api import HttpSource

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
# The stream label regex of each level asked for: the values of `LOG_LEVELS`, case-insensitive.
_LEVEL_PATTERNS = {
    "debug": "(?i)debug",
    "info": "(?i)info(rmation)?|notice",
    "warn": "(?i)warn(ing)?",
    "warning": "(?i)warn(ing)?",
    "error": "(?i)err(or)?|fatal|crit(ical)?|panic|emerg(ency)?|alert|severe",
    "fatal": "(?i)fatal|crit(ical)?|panic|emerg(ency)?|alert|severe",
    "critical": "(?i)fatal|crit(ical)?|panic|emerg(ency)?|alert|severe",
}


class _Stream(BaseModel):
    stream: dict[str, str]
    # [ts_ns, line] or, with structured metadata, [ts_ns, line, {...}]
    values: list[tuple[int, str] | tuple[int, str, dict[str, str]]]


class _Result(BaseModel):
    result_type: str = Field(alias="resultType")
    result: list[Any]


_T = TypeVar("_T")
_RESULT = TypeAdapter(_Result)
_STREAMS = TypeAdapter(list[_Stream])
_STRINGS = TypeAdapter(list[str])


class LokiClient(HttpSource):
    """A Loki server: log lines newest first, and stream label values for discovery."""

    backend = "Loki"
    ready_path = "/ready"

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        if not _LABEL_NAME.fullmatch(label):
            raise SourceError("not a valid label name", status=EvidenceStatus.REJECTED)
        raw = await self._api.get_data(f"/loki/api/v1/label/{label}/values", _window(window))
        # Loki answers `"data": null` for a label it has never seen.
        values = _validated(_STRINGS, raw if raw is not None else [])
        return sorted(values)[:limit]

    async def query_range(self, query: LogQuery) -> list[LogLine]:
        limit = query.limit
        logql = query.native or to_logql(query)
        params = [("query", logql), *_window(query.window), ("limit", str(limit))]
        params.append(("direction", "forward" if query.oldest_first else "backward"))
        raw = await self._api.get_data("/loki/api/v1/query_range", params)
        result = _validated(_RESULT, raw)
        if result.result_type != "streams":
            raise SourceError(
                "only log queries are supported, not metric queries",
                status=EvidenceStatus.REJECTED,
            )
        streams = _validated(_STREAMS, result.result)
        lines = [
            LogLine(ts=from_nanoseconds(value[0]), labels=stream.stream, message=value[1])
            for stream in streams
            for value in stream.values
        ]
        # Each stream is ordered, but the streams interleave: merge newest (or oldest) first.
        lines.sort(key=lambda line: line.ts, reverse=not query.oldest_first)
        return lines[:limit]


def to_logql(query: LogQuery) -> str:
    """`{service="X", level=~"(?i)error"} |= "text"`: the neutral filters in LogQL."""
    matchers = [f'service="{query.service}"' if query.service else 'service=~".+"']
    if query.other_than is not None:
        matchers.append(f'service!="{_escape(query.other_than)}"')
    if query.level is not None:
        matchers.append(f'level=~"{_LEVEL_PATTERNS[query.level]}"')
    matchers += [f'{name}="{_escape(value)}"' for name, value in sorted(query.labels.items())]
    logql = "{" + ", ".join(matchers) + "}"
    if query.contains and query.any_case:
        logql += f' |~ "{_escape("(?i)" + re.escape(query.contains))}"'
    elif query.contains:
        logql += f' |= "{_escape(query.contains)}"'
    if query.status_class is not None:
        logql += f' |~ "{_escape(status_pattern(query.status_class))}"'
    return logql


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def _validated(adapter: TypeAdapter[_T], raw: object) -> _T:
    try:
        return adapter.validate_python(raw)
    except ValidationError as error:
        raise SourceError("Loki returned an unexpected response") from error


def _window(window: TimeWindow) -> list[tuple[str, str]]:
    return [("start", str(to_nanoseconds(window.start))), ("end", str(to_nanoseconds(window.end)))]


def to_nanoseconds(instant: datetime) -> int:
    """Loki's timestamps: integer nanoseconds since the Unix epoch."""
    delta = instant - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def from_nanoseconds(nanoseconds: int) -> datetime:
    """A Loki timestamp as a UTC datetime (microsecond precision)."""
    return _EPOCH + timedelta(microseconds=nanoseconds // 1_000)
