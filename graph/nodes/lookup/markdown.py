"""A released lookup answer as Markdown (terminal clients): its summary, then per table the query that
ran and the rows as a Markdown table. Cells are the released text with pipes and line breaks escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graph.analysts.lookup import LOOKUP_CONTENT_TYPE


def lookup_markdown(content: Any) -> str | None:
    """The Markdown of a released `lookup_result`, or None for any other content."""
    if not isinstance(content, Mapping) or content.get("content_type") != LOOKUP_CONTENT_TYPE:
        return None
    payload = content.get("payload")
    if not isinstance(payload, Mapping):
        return None
    lines = [_cell(payload.get("summary")), ""]
    for table in payload.get("tables") or []:
        if isinstance(table, Mapping):
            lines += _table(table)
    return "\n".join(lines).rstrip() + "\n"


def _table(table: Mapping[str, Any]) -> list[str]:
    columns = [_cell(name) for name in table.get("columns") or []]
    lines = [f"**{_cell(table.get('title'))}** — `{_cell(table.get('query')).replace('`', '')}`", ""]
    rows: Sequence[Any] = table.get("rows") or []
    if not columns or not rows:
        return [*lines, "Nothing matched.", ""]
    lines += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += [
        "| " + " | ".join(_cell(value) for value in row) + " |" for row in rows if isinstance(row, list)
    ]
    return [*lines, ""]


def _cell(value: Any) -> str:
    return str(value or "").replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")
