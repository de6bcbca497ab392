"""What one datasource session may use (time, memory, rows, bytes) and the byte budget rows are fetched under.

Both dialects stream rows and stop at the budget, so one call holds at most about one batch of rows,
each value cut to `value_chars` (server side on PostgreSQL, as it arrives on MariaDB/MySQL).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

# Below this a per-value cut would make ordinary values unreadable; a row of many columns may then
# exceed an even share of the budget, but stays bounded by columns x this.
_MIN_VALUE_CHARS = 64
_SCALAR_BYTES = 8


@dataclass(frozen=True, slots=True)
class SessionBounds:
    """The limits pinned on every datasource session (see the README's SQL datasource section)."""

    max_result_bytes: int = 65_536
    connect_timeout_s: float = 5.0
    # PostgreSQL: SET LOCAL work_mem; temp_file_limit only where the role may set it (see postgres.py).
    work_mem_kb: int = 8_192
    temp_file_limit_kb: int = 262_144
    # Lock waits end well before the statement timeout, so a blocked read reports quickly.
    lock_timeout_ms: int = 2_000

    def value_chars(self, columns: int) -> int:
        """How many characters of one value are kept: an even share of the budget per column."""
        return max(self.max_result_bytes // max(columns, 1), _MIN_VALUE_CHARS)


def value_bytes(value: Any) -> int:
    """The size of one fetched value as it sits in memory, close enough to budget by."""
    if isinstance(value, str):
        # isascii() is O(1) in CPython; a non-ASCII character takes at most 4 bytes.
        return len(value) if value.isascii() else 4 * len(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return len(value)
    if value is None or isinstance(value, bool | int | float | datetime | date | time | timedelta):
        return _SCALAR_BYTES
    if isinstance(value, Decimal):
        return len(value.as_tuple().digits) + _SCALAR_BYTES
    return len(str(value))


def clip(value: Any, chars: int) -> tuple[Any, bool]:
    """`value` cut to `chars` characters (bytes for binary values), and whether it was cut."""
    if isinstance(value, str | bytes | bytearray) and len(value) > chars:
        return value[:chars], True
    return value, False


@dataclass(slots=True)
class RowBudget:
    """Accepts rows until `max_rows` or `max_bytes` would be passed; anything refused means truncated."""

    max_rows: int
    max_bytes: int
    value_chars: int
    rows: list[list[Any]] = field(default_factory=list)
    used_bytes: int = 0
    truncated: bool = False

    def offer(self, row: Any) -> bool:
        """Keep `row` (values clipped) if it fits; False once fetching should stop."""
        if len(self.rows) >= self.max_rows:
            self.truncated = True
            return False
        kept = []
        size = 0
        for value in row:
            value, cut = clip(value, self.value_chars)
            self.truncated = self.truncated or cut
            size += value_bytes(value)
            kept.append(value)
        # The first row is always kept (clipped), so a result is never empty only because it is wide.
        if self.rows and self.used_bytes + size > self.max_bytes:
            self.truncated = True
            return False
        self.rows.append(kept)
        self.used_bytes += size
        return True
