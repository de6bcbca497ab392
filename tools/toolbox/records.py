"""Handlers of the record tools: SQL datasources, runbooks and the case library."""

from __future__ import annotations

from tools.base import CaseSource, KnowledgeSource, SqlSource
from tools.redaction import masked_rows
from tools.toolbox.args import (
    ListRunbooksArgs,
    ListTablesArgs,
    QueryMysqlArgs,
    SearchCasesArgs,
    SearchRunbooksArgs,
)
from tools.toolbox.spec import Answer, ToolContext, rejected, require

_SUMMARY_ROWS = 3


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


async def list_runbooks(ctx: ToolContext, args: ListRunbooksArgs) -> Answer:
    source: KnowledgeSource = require(ctx.sources.knowledge, "knowledge")
    entries = await source.index(limit=ctx.limits.max_discovery_items)
    files = sorted({file for file, _ in entries})
    return Answer(
        title="Runbook index",
        summary=f"{len(entries)} sections in {len(files)} runbooks: {', '.join(files)}",
        data={"runbooks": [{"file": file, "heading": heading} for file, heading in entries]},
        empty=not entries,
        truncated=len(entries) >= ctx.limits.max_discovery_items,
    )


async def search_runbooks(ctx: ToolContext, args: SearchRunbooksArgs) -> Answer:
    source: KnowledgeSource = require(ctx.sources.knowledge, "knowledge")
    passages = await source.search(query=args.query, limit=args.limit)
    found = "; ".join(f"{p.file} § {p.heading}" for p in passages)
    return Answer(
        title=f"Runbook passages for {args.query!r}",
        summary=f"{len(passages)} passages" + (f": {found}" if found else ""),
        data={
            "passages": [
                {"file": p.file, "heading": p.heading, "text": p.text, "score": round(p.score, 4)}
                for p in passages
            ]
        },
        query={"query": args.query, "limit": args.limit},
        empty=not passages,
    )


async def search_cases(ctx: ToolContext, args: SearchCasesArgs) -> Answer:
    source: CaseSource = require(ctx.sources.cases, "cases")
    cases = await source.similar_cases(query=args.query, limit=args.limit, principal=ctx.principal)
    found = "; ".join(f"{c.case_id}: {c.root_cause_service or '?'} / {c.category or '?'}" for c in cases)
    return Answer(
        title="Similar past cases (historical clues, not evidence of the current incident)",
        summary=(
            f"{len(cases)} similar past cases; historical clues only, confirm with live evidence"
            + (f": {found}" if found else "")
        ),
        data={
            "cases": [
                {
                    "case_id": c.case_id,
                    "query": c.query,
                    "answer": c.answer,
                    "root_cause_service": c.root_cause_service,
                    "category": c.category,
                    "diagnosis_id": c.diagnosis_id,
                    "score": round(c.score, 4),
                }
                for c in cases
            ]
        },
        query={"query": args.query, "limit": args.limit},
        empty=not cases,
    )
