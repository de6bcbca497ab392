"""Rows asked for in words: "show the top 3 queries by total elapsed time from the db-1 query stats".

No SQL is given, so the statement is built from what the database has, never from the question's
text: the first round lists the named datasource's tables, the second picks the table whose name
shares the most words with the question and reads its columns (`LIMIT 0`), the third ranks it by
the column whose name shares the most words with what follows "by". Only names the database
returned are written into a statement, and only when they are plain identifiers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from graph.analysts.base import PlannedCall, PlanRequest
from tools.digest.labels import name_pattern

_ROWS = re.compile(
    r"\b(?P<rank>top|first|highest|largest|biggest|slowest|most|lowest|smallest|least)\s+(?P<n>\d{1,4})\s+"
    r"(?P<what>[a-z][\w -]{0,40}?)\s+by\s+(?P<by>[a-z][\w -]{0,60}?)"
    r"(?:\s+(?:from|in|on|of)\s+(?P<where>[^?!]+?))?\s*[?.!]*$",
    re.IGNORECASE,
)
# What a table of a database holds, in the question's words: rows asked for of anything else
# ("the top 10 pods by cpu") are not a table's.
_TABLE_NOUNS = re.compile(
    r"\b(?:quer(?:y|ies)|statements?|tables?|rows?|records?|sessions?|transactions?|locks?|stats|statistics)\b",
    re.IGNORECASE,
)
_ASCENDING = frozenset({"lowest", "smallest", "least"})
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_COLUMNS_ONLY = " LIMIT 0"
MAX_ROWS = 200


def asks_rows(text: str) -> bool:
    """Whether a question asks for a table's rows ranked by a column, in words."""
    return _rows_asked(text) is not None


def _rows_asked(text: str) -> re.Match[str] | None:
    """The rank, count, things and "by" words of a rows ask; None when what it ranks is no table's."""
    match = _ROWS.search(text)
    if match is None or not _TABLE_NOUNS.search(f"{match['what']} {match['where'] or ''}"):
        return None
    return match


def datasource_named(text: str, datasources: Sequence[str]) -> str | None:
    """The datasource the question names, or the only one there is."""
    named = [name for name in datasources if name_pattern(name).search(text)]
    if named:
        return named[0]
    return datasources[0] if len(datasources) == 1 else None


def first_calls(text: str, datasources: Sequence[str]) -> tuple[PlannedCall, ...]:
    """The first round: the named datasource's tables (none when no datasource is known yet)."""
    datasource = datasource_named(text, datasources)
    if datasource is None:
        return ()
    return (PlannedCall(tool="list_tables", args={"datasource": datasource}, purpose="lookup"),)


def rows_calls(request: PlanRequest) -> list[PlannedCall] | None:
    """The later rounds of a rows ask: its columns, then its ranked rows; None when the question is
    no rows ask (the other lookups' later rounds apply), [] when there is nothing left to read."""
    text = request.route.resolved_query
    if (match := _rows_asked(text)) is None:
        return None
    datasource = datasource_named(text, request.datasources)
    tables = request.discovery.tables.get(datasource or "", ())
    table = _best(tables, _words(text))
    if datasource is None or table is None:
        return []
    columns_read = f"SELECT * FROM {table}{_COLUMNS_ONLY}"
    read = next((s for s in request.digest.sql if s.statement == columns_read and s.columns), None)
    if read is None:
        return [_query(datasource, columns_read)]
    column = _best(read.columns, _words(match["by"]))
    if column is None:
        return []
    order = "ASC" if match["rank"].lower() in _ASCENDING else "DESC"
    rows = min(int(match["n"]), MAX_ROWS)
    return [_query(datasource, f"SELECT * FROM {table} ORDER BY {column} {order} LIMIT {rows}")]


def _query(datasource: str, statement: str) -> PlannedCall:
    return PlannedCall(
        tool="query_mysql", args={"datasource": datasource, "statement": statement}, purpose="lookup"
    )


def _words(text: str) -> set[str]:
    """The words of `text`, each also without a plural `s` (`queries` is `query`)."""
    words = {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 2}
    return words | {re.sub(r"ies$", "y", w) for w in words} | {w[:-1] for w in words if w.endswith("s")}


def _best(names: Iterable[str], words: set[str]) -> str | None:
    """The one plain identifier sharing the most words with `words` (none on a tie or no overlap)."""
    scored = sorted(
        (
            (len(words & set(re.split(r"[_\W]+", name.lower()))), name)
            for name in names
            if _IDENTIFIER.match(name)
        ),
        reverse=True,
    )
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]
