"""Rows asked for in words: the table and the column come from what the database returned."""

from __future__ import annotations

from datetime import UTC, datetime

from graph.analysts.base import Discovery, PlanRequest, Route
from graph.analysts.rules.lookup import lookup_ask, plan_lookup
from graph.analysts.rules.lookup_sql import asks_rows
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.item import digest_item
from tools.digest.limits import DigestLimits
from tools.facts import Digest, SqlSummary

QUESTION = "Show the top 3 queries by total elapsed time from the claims-db query stats."
TABLES = {"claims-db": ["active_requests", "query_stats", "resource_stats"]}
COLUMNS = ["query_hash", "execution_count", "total_worker_time_ms", "total_elapsed_time_ms", "query_text"]


def _round(
    number: int, digest: Digest | None = None, tables: dict[str, list[str]] = TABLES
) -> list[dict[str, object]]:
    request = PlanRequest(
        route=Route(route="lookup", intent="lookup", resolved_query=QUESTION),
        round=number,
        tool_names=[],
        datasources=["claims-db", "audit-db"],
        remaining_tool_calls=10,
        discovery=Discovery(tables=tables),
        digest=digest or Digest(),
    )
    return [{"tool": c.tool, **c.args} for c in plan_lookup(request).calls]


def _columns_read() -> Digest:
    read = SqlSummary("sql-2", "claims-db", "SELECT * FROM query_stats LIMIT 0", 0, COLUMNS, [])
    return Digest(sql=[read])


def test_the_named_datasources_tables_then_the_tables_columns_then_its_ranked_rows() -> None:
    assert _round(1) == [{"tool": "list_tables", "datasource": "claims-db"}]
    assert _round(2) == [
        {"tool": "query_mysql", "datasource": "claims-db", "statement": "SELECT * FROM query_stats LIMIT 0"}
    ]
    ranked = "SELECT * FROM query_stats ORDER BY total_elapsed_time_ms DESC LIMIT 3"
    assert _round(3, _columns_read()) == [
        {"tool": "query_mysql", "datasource": "claims-db", "statement": ranked}
    ]


def test_no_table_or_column_the_question_names_reads_nothing_more() -> None:
    assert _round(2, tables={"claims-db": ["users", "sessions_log; DROP TABLE x"]}) == []
    two = {"claims-db": ["query_stats_daily", "query_stats_hourly"]}  # a tie: no guess
    assert _round(2, tables=two) == []


def test_a_rows_ask_is_a_lookup_only_about_what_a_table_holds() -> None:
    assert asks_rows(QUESTION)
    ask = lookup_ask(QUESTION)
    assert ask is not None and ask.kind == "sql"
    assert not asks_rows("show the top 10 pods by cpu on node-3")  # a metric's, not a table's
    assert not asks_rows("why are the top 3 queries slow?")


def test_an_empty_result_set_still_says_its_tables_columns() -> None:
    data = {
        "datasource": "claims-db",
        "statement": "SELECT * FROM query_stats LIMIT 0",
        "columns": COLUMNS,
        "rows": [],
    }
    empty = Evidence("sql-2", EvidenceSource.SQL, "query_mysql", "SQL", "", data, {}, EvidenceStatus.EMPTY)
    facts = digest_item(empty, now=datetime(2026, 1, 1, tzinfo=UTC), limits=DigestLimits())
    assert facts.sql is not None and facts.sql.columns == COLUMNS and facts.sql.row_count == 0
    logs = Evidence(
        "logs-2", EvidenceSource.LOGS, "query_logs", "Logs", "", {"lines": []}, {}, EvidenceStatus.EMPTY
    )
    assert digest_item(logs, now=datetime(2026, 1, 1, tzinfo=UTC), limits=DigestLimits()).sql is None
