"""The SQL tools: the tables of a named read-only datasource and one read-only statement on it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from tools.base import EvidenceSource, SqlSource
from tools.redaction import masked_rows
from tools.toolbox.args import Name, ToolArgs
from tools.toolbox.spec import Answer, Found, ToolContext, ToolSpec, rejected, require

_SUMMARY_ROWS = 3


class ListTablesArgs(ToolArgs):
    datasource: Name


class QueryMysqlArgs(ToolArgs):
    datasource: Name
    statement: str = Field(min_length=1, max_length=20_000, description="one read-only statement")


def _known_datasource(source: SqlSource, name: str) -> None:
    # Fail closed before any connection: only configured names are reachable.
    if name not in source.datasources():
        raise rejected(f"unknown datasource {name!r}")


async def list_tables(ctx: ToolContext, args: ListTablesArgs) -> Answer:
    source: SqlSource = require(ctx.sources.sql, "sql")
    _known_datasource(source, args.datasource)
    limit = ctx.limits.max_discovery_items
    tables = await source.list_tables(datasource=args.datasource, limit=limit)
    return Answer(
        title=f"Tables of {args.datasource}",
        summary=f"{len(tables)} tables in {args.datasource}: {', '.join(tables)}",
        data={"datasource": args.datasource, "tables": list(tables[:limit])},
        query={"datasource": args.datasource},
        empty=not tables,
        truncated=len(tables) >= limit,
    )


async def query_mysql(ctx: ToolContext, args: QueryMysqlArgs) -> Answer:
    source: SqlSource = require(ctx.sources.sql, "sql")
    if len(args.statement) > ctx.limits.max_sql_chars:
        raise rejected(f"statement must be at most {ctx.limits.max_sql_chars} characters")
    _known_datasource(source, args.datasource)
    result = await source.query(
        datasource=args.datasource,
        statement=args.statement,
        max_rows=ctx.limits.max_rows,
        timeout_ms=ctx.limits.sql_statement_timeout_ms,
    )
    columns = list(result.columns)
    # A password or key column's values name nothing the text patterns could catch: masked by name.
    rows = masked_rows(columns, result.rows[: ctx.limits.max_rows])
    truncated = result.truncated or len(result.rows) > ctx.limits.max_rows
    shown = "; ".join(
        ", ".join(f"{c}={v}" for c, v in zip(columns, row, strict=False)) for row in rows[:_SUMMARY_ROWS]
    )
    more = f" (capped at {ctx.limits.max_rows} rows)" if truncated else ""
    return Answer(
        title=f"SQL on {args.datasource}",
        # The column list is closed before the rows: "..., password: name=svc" would read as a pair.
        summary=f"{len(rows)} rows{more} (columns {', '.join(columns)})" + (f": {shown}" if shown else ""),
        data={
            "datasource": args.datasource,
            "statement": args.statement,
            "columns": columns,
            "rows": rows,
        },
        query={"datasource": args.datasource, "statement": args.statement},
        empty=not rows,
        truncated=truncated,
    )


def found_tables(data: Mapping[str, Any]) -> Found:
    """The tables of the listed datasource."""
    return Found(tables={str(data.get("datasource", "")): tuple(str(t) for t in data.get("tables") or [])})


TOOLS = (
    ToolSpec(
        "list_tables",
        EvidenceSource.SQL,
        ListTablesArgs,
        "List the tables of a named read-only SQL datasource.",
        list_tables,
        lane="knowledge",
        role="discovery",
        finds=found_tables,
    ),
    ToolSpec(
        "query_mysql",
        EvidenceSource.SQL,
        QueryMysqlArgs,
        "One read-only statement (SELECT, SHOW, DESCRIBE, EXPLAIN) on a named datasource.",
        query_mysql,
        lane="knowledge",
    ),
)
