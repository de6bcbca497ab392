"""`inspect_database`: a database's own state (sessions, blocking chains, open transactions, lock waits,
top statements, replication, sizes), read with canned statements through the same guard, read-only
session and role audit as any statement. PostgreSQL and MariaDB/MySQL; other datasources answer empty.

What the role needs: PostgreSQL `pg_monitor` (other sessions' applications, states and queries,
`pg_blocking_pids`, database sizes, pg_stat_statements); MariaDB/MySQL `PROCESS` (every session in
PROCESSLIST, INNODB_TRX and the lock waits) and, for replica status, `SLAVE MONITOR`/`REPLICATION CLIENT`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, get_args

from pydantic import Field

from tools.base import EvidenceSource, EvidenceStatus, SourceError, SqlResult, SqlSource
from tools.sql import introspect_mysql, introspect_postgres
from tools.sql.introspect_rows import Reader, Section, unavailable
from tools.sql.introspect_shape import shaped
from tools.toolbox.args import Name, ToolArgs
from tools.toolbox.spec import Answer, ToolContext, ToolSpec, rejected, require

Aspect = Literal["sessions", "blocking", "transactions", "lock_waits", "statements", "replication", "sizes"]
ASPECTS: tuple[Aspect, ...] = get_args(Aspect)
# Each dialect's module has one reader per aspect, named after it.
_BY_DIALECT: Mapping[str, Mapping[str, Callable[[Reader], Awaitable[Section]]]] = {
    dialect: {aspect: getattr(module, aspect) for aspect in ASPECTS}
    for dialect, module in (("postgres", introspect_postgres), ("mysql", introspect_mysql))
}
# Words that put a database in question (the engines this tool reads and what it reports on), matched in a
# question, an alert's name and labels, a metric's name split at underscores or an error log template.
IMPLICATING_WORDS = re.compile(
    r"\b(?:postgres\w*|pg|mysql\w*|mariadb|innodb|databases?|db|sql|datname|deadlocks?|locks?|locked|"
    r"blocking|blocked|connections?|transactions?|replicas?|replication|quer(?:y|ies)|tablespace)\b",
    re.IGNORECASE,
)
# Refusals mean the datasource may not be asked at all (disabled role), not that one aspect is missing.
_WHOLE_CALL = (EvidenceStatus.REJECTED,)


class InspectDatabaseArgs(ToolArgs):
    datasource: Name
    aspects: list[Aspect] = Field(
        default_factory=lambda: list(ASPECTS), min_length=1, max_length=len(ASPECTS)
    )


async def inspect_database(ctx: ToolContext, args: InspectDatabaseArgs) -> Answer:
    source: SqlSource = require(ctx.sources.sql, "sql")
    if args.datasource not in source.datasources():
        raise rejected(f"unknown datasource {args.datasource!r}")
    dialect = source.dialect(args.datasource)
    query = {"datasource": args.datasource, "aspects": list(args.aspects)}
    readers = _BY_DIALECT.get(dialect)
    if readers is None:
        reason = f"introspection reads PostgreSQL and MariaDB/MySQL; {args.datasource} is {dialect}"
        data = {"datasource": args.datasource, "dialect": dialect, "available": False, "reason": reason}
        return Answer(title=f"State of {args.datasource}", summary=reason, data=data, query=query, empty=True)

    async def read(statement: str) -> SqlResult:
        return await source.query(
            datasource=args.datasource,
            statement=statement,
            max_rows=ctx.limits.max_rows,
            timeout_ms=ctx.limits.sql_statement_timeout_ms,
        )

    sections = await _read_aspects(read, readers, args.aspects)
    return Answer(
        title=f"State of {args.datasource} ({dialect})",
        summary=describe(args.datasource, dialect, sections),
        data={"datasource": args.datasource, "dialect": dialect, "introspection": sections},
        query=query,
    )


async def _read_aspects(
    read: Reader, readers: Mapping[str, Callable[[Reader], Awaitable[Section]]], aspects: list[Aspect]
) -> dict[str, Section]:
    """Each aspect on its own: one the role may not read says why, the others still answer. One after
    the other, so a database short of connections is asked over one at a time."""
    sections: dict[str, Section] = {}
    failures: list[SourceError] = []
    for aspect in dict.fromkeys(aspects):
        try:
            sections[aspect] = shaped(aspect, await readers[aspect](read))
        except SourceError as error:
            if error.status in _WHOLE_CALL:
                raise
            failures.append(error)
            sections[aspect] = unavailable(error.public)
    if failures and len(failures) == len(sections):
        raise failures[0]  # nothing answered: unreachable, or a role that can read none of it
    return sections


def describe(datasource: str, dialect: str, sections: Mapping[str, Section]) -> str:
    """One line an SRE reads first: connections, the head of each blocking chain, the oldest transaction."""
    parts = [_sessions_text(sections.get("sessions") or {})]
    blockers = (sections.get("blocking") or {}).get("blockers") or []
    parts += [_blocker_text(b) for b in blockers if b["head_of_chain"]]
    open_ = (sections.get("transactions") or {}).get("open") or []
    if open_:
        oldest = open_[0]
        parts.append(
            f"{len(open_)} open transactions, oldest {oldest.get('application')} (pid {oldest.get('pid')},"
            f" {oldest.get('state')}) for {oldest.get('xact_age_s')} s"
        )
    waits = (sections.get("lock_waits") or {}).get("relations") or []
    if waits:
        queues = ", ".join(f"{w['relation']} ({w['waiting_sessions']})" for w in waits[:3])
        parts.append(f"lock waits on {queues}")
    missing = [name for name, section in sections.items() if section.get("available") is False]
    if missing:
        parts.append("unavailable: " + ", ".join(missing))
    return f"{datasource} ({dialect}): " + "; ".join(p for p in parts if p)


def _sessions_text(sessions: Mapping[str, Any]) -> str:
    if not sessions or sessions.get("available") is False:
        return ""
    apps = ", ".join(
        f"{a['application']} {a['sessions']} ({', '.join(f'{s} {n}' for s, n in a['states'].items())})"
        for a in (sessions.get("by_application") or [])[:3]
    )
    return f"{sessions.get('total')} of {sessions.get('max_connections')} connections: {apps}"


def _blocker_text(blocker: Mapping[str, Any]) -> str:
    apps = ", ".join(f"{app} {n}" for app, n in blocker["waiting_applications"].items())
    return (
        f"{blocker['application']} (pid {blocker['pid']}, {blocker['state']}, transaction open"
        f" {blocker['xact_age_s']} s) blocks {blocker['waiting_total']} sessions ({apps})"
    )


TOOLS = (
    ToolSpec(
        "inspect_database",
        EvidenceSource.SQL,
        InspectDatabaseArgs,
        "A database's own state: sessions vs max_connections, blocking chains, long transactions,"
        " lock waits, top queries, replication, sizes.",
        inspect_database,
        lane="knowledge",
    ),
)
