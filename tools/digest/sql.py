"""SQL result summaries: size, columns and a few short "column=value" facts worth citing."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from tools.digest.labels import clip
from tools.digest.limits import DigestLimits
from tools.facts import SqlSummary

_FIRST_ROWS = 2
_VALUE_CHARS = 80
# A text column with at most this many distinct values is categorical: its most common value says
# something (e.g. a state most connections are in); free text and ids do not.
_MAX_CATEGORIES = 8


def summary_from(evidence_id: str, data: Mapping[str, Any], *, limits: DigestLimits) -> SqlSummary:
    """One result set as a summary; a table listing becomes its table names."""
    columns = [str(c) for c in data.get("columns") or []]
    rows = [list(r) for r in data.get("rows") or [] if isinstance(r, Sequence)]
    if not columns and "tables" in data:
        tables = [str(t) for t in data.get("tables") or []]
        columns, rows = ["table"], [[t] for t in tables]
    highlights = _highlights(columns, rows)[: limits.max_highlights]
    return SqlSummary(
        evidence_id=evidence_id,
        datasource=str(data.get("datasource") or ""),
        statement=clip(str(data.get("statement") or ""), limits.summary_chars),
        row_count=len(rows),
        columns=columns[:50],
        highlights=highlights,
    )


def _highlights(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    found: list[str] = []
    for index, column in enumerate(columns):
        cells = [row[index] for row in rows if index < len(row) and row[index] is not None]
        numbers = [float(c) for c in cells if _is_number(c)]
        if numbers and len(numbers) == len(cells) and len(rows) > 1:
            found.append(f"max({column})={_number(max(numbers))}")
            found.append(f"min({column})={_number(min(numbers))}")
            continue
        texts = [str(c) for c in cells if isinstance(c, str)]
        common = Counter(texts).most_common()
        if len(rows) > 2 and 1 <= len(common) <= _MAX_CATEGORIES and common[0][1] > 1:
            value, count = common[0]
            found.append(f"{column}={clip(value, _VALUE_CHARS)} ({count} of {len(rows)} rows)")
    first = [
        f"{column}={clip(str(row[i]), _VALUE_CHARS)}"
        for row in rows[:_FIRST_ROWS]
        for i, column in enumerate(columns)
        if i < len(row) and row[i] is not None
    ]
    # Aggregates first (they summarise every row), then the first rows' own values.
    return found + first


def _is_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return math.isfinite(float(value))
    return False


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else f"{value:.6g}"
