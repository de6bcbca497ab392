"""The typed answer of a data question: tables of the rows the requested query returned.

A lookup's rows are never written by an analyst: they are read from the run's tool results
(`graph.nodes.lookup.tables`), and EvidenceGuard holds every row shown to a row of a cited result.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

TableKind = Literal["log_lines", "line_counts", "series", "alerts", "targets", "rules", "rows"]
# The tools whose results a lookup shows as tables (`graph.nodes.lookup.tables.READERS` reads each).
LOOKUP_TOOLS: tuple[str, ...] = (
    "query_logs",
    "count_logs",
    "query_promql_instant",
    "query_promql",
    "read_metric",
    "query_metric",
    "list_alerts",
    "alert_history",
    "list_targets",
    "list_rules",
    "query_mysql",
)
# The content type a lookup answer is released under.
LOOKUP_CONTENT_TYPE = "lookup_result"
# Calls a model may plan for one lookup.
MAX_LOOKUP_CALLS = 4


class LookupTable(BaseModel):
    """The rows one query (or one merged set of log queries) returned, as text cells."""

    kind: TableKind
    title: str
    query: str = Field(description="the query that produced the rows, as it ran")
    evidence_ids: list[str]
    columns: list[str]
    rows: list[list[str]]
    total: int = Field(ge=0, description="rows the sources returned; more than shown when cut")
    truncated: bool = Field(description="a source had more rows than it returned (its limit)")


class LookupAnswer(BaseModel):
    """What a lookup releases: a one-line summary with counts, the tables, and what failed."""

    summary: str
    tables: list[LookupTable] = Field(default_factory=list)
    nothing_matched: bool = False
    failed: list[str] = Field(default_factory=list, description="evidence ids whose source could not answer")
