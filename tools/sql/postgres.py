"""One statement on a PostgreSQL datasource (psycopg 3, async): a read-only transaction with its limits
pinned by SET LOCAL, rows streamed from a server-side cursor under a byte budget, never committed.

Every statement reaches the server through the extended query protocol (one Parse message), which
refuses a second statement in the same text ("cannot insert multiple commands into a prepared
statement"): a server-side cursor always uses it, the other reads force it with binary results.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from decimal import Decimal, InvalidOperation
from typing import Any

import psycopg
from psycopg import errors as pg_errors

from tools.base import SourceError, SqlResult
from tools.sql import failures
from tools.sql.session import RowBudget, SessionBounds

logger = logging.getLogger(__name__)

_PUBLIC = {
    "42P01": failures.UNKNOWN_TABLE,
    "42703": failures.UNKNOWN_COLUMN,
    "42601": failures.SYNTAX,
    "25006": failures.READ_ONLY,
    "42501": failures.DENIED,
}
# Rows per FETCH: one batch is what the client holds at once beyond the kept rows.
_FETCH_BATCH = 16
# Types whose text form is short whatever the value; every other column is cut on the server.
_SHORT_TYPE_OIDS = frozenset(
    {16, 18, 19, 20, 21, 23, 24, 26, 28, 650, 700, 701, 774, 790, 829, 869, 1082, 1083, 1114, 1184,
     1186, 1266, 2205, 2206, 2950, 3220}
)  # fmt: skip
_NUMERIC_OID = 1700
_TRAILING = re.compile(r"[\s;]+\Z")
# temp_file_limit has superuser context: SET by a role without the right aborts the transaction
# (42501), so it is set only when permitted (superuser, or PostgreSQL 15+'s GRANT SET ON PARAMETER).
_MAY_SET_TEMP_LIMIT_15 = (
    "current_setting('is_superuser') = 'on' OR has_parameter_privilege('temp_file_limit', 'SET')"
)
_MAY_SET_TEMP_LIMIT_OLD = "current_setting('is_superuser') = 'on'"


async def run_postgres(
    url: str, statement: str, *, max_rows: int, timeout_ms: int, bounds: SessionBounds, streamed: bool
) -> SqlResult:
    """Run one statement; `streamed` (a SELECT) goes through a server-side cursor, cut on the server."""
    conninfo = url.replace("+psycopg", "", 1).replace("postgres://", "postgresql://", 1)
    try:
        connection = await psycopg.AsyncConnection.connect(
            conninfo, connect_timeout=max(1, int(bounds.connect_timeout_s)), autocommit=False
        )
    except psycopg.Error as error:
        logger.warning("postgres datasource unreachable: %s", error.sqlstate)
        raise failures.failed(failures.UNREACHABLE) from error
    try:
        await _pin_session(connection, timeout_ms, bounds)
        if streamed:
            columns, budget = await _stream_select(connection, statement, max_rows, bounds)
        else:
            columns, budget = await _small_read(connection, statement, max_rows, bounds)
        return SqlResult(columns=columns, rows=budget.rows, truncated=budget.truncated)
    except pg_errors.QueryCanceled as error:
        raise failures.timed_out(timeout_ms) from error
    except psycopg.Error as error:
        raise postgres_public(error) from error
    finally:
        await _close(connection)


def postgres_public(error: psycopg.Error) -> SourceError:
    logger.info("postgres statement failed: %s", error.sqlstate)
    return failures.failed(_PUBLIC.get(error.sqlstate or "", failures.FAILED))


async def _pin_session(
    connection: psycopg.AsyncConnection[Any], timeout_ms: int, bounds: SessionBounds
) -> None:
    # The first statement opens the transaction psycopg begins; SET TRANSACTION must come first in it.
    await connection.execute("SET TRANSACTION READ ONLY")
    may_set_temp_limit = (
        _MAY_SET_TEMP_LIMIT_15 if connection.info.server_version >= 150_000 else _MAY_SET_TEMP_LIMIT_OLD
    )
    # set_config(..., true) is SET LOCAL: every value ends with the transaction, none outlives the call.
    await connection.execute(
        "SELECT set_config('statement_timeout', %(timeout)s, true),"
        " set_config('lock_timeout', %(lock)s, true),"
        " set_config('idle_in_transaction_session_timeout', %(idle)s, true),"
        " set_config('work_mem', %(work_mem)s, true),"
        f" CASE WHEN {may_set_temp_limit} THEN set_config('temp_file_limit', %(temp)s, true) END",
        {
            "timeout": str(int(timeout_ms)),
            "lock": str(min(bounds.lock_timeout_ms, int(timeout_ms))),
            # Between two FETCHes the session is idle in the transaction; a client that vanishes is cut off.
            "idle": str(2 * int(timeout_ms)),
            "work_mem": f"{bounds.work_mem_kb}kB",
            "temp": f"{bounds.temp_file_limit_kb}kB",
        },
    )


async def _stream_select(
    connection: psycopg.AsyncConnection[Any], statement: str, max_rows: int, bounds: SessionBounds
) -> tuple[list[str], RowBudget]:
    # DECLARE only plans the statement; its description says which columns can hold a huge value.
    async with connection.cursor(name="superbiz_probe") as probe:
        await probe.execute(statement)
        description = probe.description or []
        columns = [column.name for column in description]
        chars = bounds.value_chars(len(columns))
        budget = RowBudget(max_rows=max_rows, max_bytes=bounds.max_result_bytes, value_chars=chars)
        long_columns = [column.type_code not in _SHORT_TYPE_OIDS for column in description]
        if not any(long_columns):
            await _fetch(probe, budget, numeric=[])
            return columns, budget
    numeric = [column.type_code == _NUMERIC_OID for column in description]
    async with connection.cursor(name="superbiz_read") as cursor:
        await cursor.execute(_cut_wrapper(statement, long_columns, chars))
        await _fetch(cursor, budget, numeric=numeric)
    return columns, budget


def _cut_wrapper(statement: str, long_columns: list[bool], chars: int) -> str:
    """`statement` as a derived table whose long columns are cut to `chars + 1` characters on the
    server (the extra character tells the budget the value was cut). The columns are renamed so that
    duplicate or unnamed ones can be referenced; newlines keep a trailing `--` comment inside."""
    body = _TRAILING.sub("", statement)
    names = [f"c{i}" for i in range(1, len(long_columns) + 1)]
    select = ", ".join(
        f"left(q.{name}::text, {chars + 1})" if long else f"q.{name}"
        for name, long in zip(names, long_columns, strict=True)
    )
    return f"SELECT {select} FROM (\n{body}\n) AS q({', '.join(names)})"


async def _fetch(cursor: psycopg.AsyncServerCursor[Any], budget: RowBudget, *, numeric: list[bool]) -> None:
    while True:
        batch = await cursor.fetchmany(_FETCH_BATCH)
        for row in batch:
            if not budget.offer(_restore_numbers(row, numeric, budget.value_chars) if numeric else row):
                return  # the cursor is closed unread: nothing more crosses the wire
        if len(batch) < _FETCH_BATCH:
            return


def _restore_numbers(row: Any, numeric: list[bool], chars: int) -> list[Any]:
    """numeric values came back as text to be cut; a whole one becomes a number again."""
    values = list(row)
    for i, is_numeric in enumerate(numeric):
        value = values[i]
        if is_numeric and isinstance(value, str) and len(value) <= chars:
            with contextlib.suppress(InvalidOperation):
                values[i] = Decimal(value)
    return values


async def _small_read(
    connection: psycopg.AsyncConnection[Any], statement: str, max_rows: int, bounds: SessionBounds
) -> tuple[list[str], RowBudget]:
    # SHOW and EXPLAIN cannot be declared as a cursor; their output is small by nature. binary=True
    # makes psycopg send the text with the extended protocol (the simple one runs every statement in it).
    async with connection.cursor() as cursor:
        await cursor.execute(statement, binary=True)
        columns = [column.name for column in cursor.description or ()]
        budget = RowBudget(
            max_rows=max_rows, max_bytes=bounds.max_result_bytes, value_chars=bounds.value_chars(len(columns))
        )
        if cursor.description:
            for row in await cursor.fetchmany(max_rows + 1):
                if not budget.offer(row):
                    break
    return columns, budget


async def _close(connection: psycopg.AsyncConnection[Any]) -> None:
    try:
        await asyncio.shield(connection.rollback())
    except psycopg.Error:
        logger.debug("rollback failed; closing anyway", exc_info=True)
    finally:
        await connection.close()
