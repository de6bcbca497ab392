"""What the introspection statements share: how one is run, rows as records, and an aspect that is
unavailable (with why) instead of a failed call."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from tools.base import SqlResult

# One canned statement in, its rows out (raises SourceError like any statement).
Reader = Callable[[str], Awaitable[SqlResult]]
Section = dict[str, Any]


def records(result: SqlResult) -> list[dict[str, Any]]:
    """Rows as `column -> JSON value` records (lower-case column names, numbers as numbers)."""
    columns = [str(column).lower() for column in result.columns]
    return [{c: plain(v) for c, v in zip(columns, row, strict=False)} for row in result.rows]


def plain(value: Any) -> Any:
    """A JSON value: exact decimals as int or float, times as ISO text, bytes as text."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return round(value.total_seconds(), 3)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return value


def unavailable(reason: str) -> Section:
    """An aspect the server cannot answer here, and why (an extension missing, a privilege lacking)."""
    return {"available": False, "reason": reason}
