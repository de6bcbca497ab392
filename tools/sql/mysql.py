"""One statement on a MariaDB/MySQL datasource (aiomysql): a single-statement connection with its
sql_mode and limits pinned, a read-only transaction, rows streamed one by one under a byte budget.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import unquote, urlsplit

import aiomysql
from pymysql.constants import CLIENT

from tools.base import SourceError, SqlResult
from tools.sql import failures
from tools.sql.session import RowBudget, SessionBounds

logger = logging.getLogger(__name__)

# The mode the guard lexes with: quotes delimit strings, backslash escapes inside them. Neither
# ANSI_QUOTES nor NO_BACKSLASH_ESCAPES, whatever the server's or the account's default, and nothing
# MySQL 8 or MariaDB 10.x lacks.
PINNED_SQL_MODE = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
# MariaDB max_statement_time, MySQL max_execution_time, and "query interrupted".
_TIMEOUT_CODES = {1969, 3024, 1317}
_QUIT_TIMEOUT_S = 1.0
_PUBLIC = {
    1146: failures.UNKNOWN_TABLE,
    1054: failures.UNKNOWN_COLUMN,
    1064: failures.SYNTAX,
    1792: failures.READ_ONLY,
    1142: failures.DENIED,
    1143: failures.DENIED,
    1370: failures.DENIED,
}


class _SingleStatementConnection(aiomysql.Connection):  # type: ignore[misc]
    """aiomysql always asks for CLIENT.MULTI_STATEMENTS; without it the server itself refuses a
    second statement in one query (a syntax error), whatever a guard let through."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.client_flag &= ~CLIENT.MULTI_STATEMENTS


async def connect_mysql(url: str, *, connect_timeout_s: float) -> Any:
    """An open single-statement connection, autocommit off; raises SourceError when unreachable."""
    parts = urlsplit(url)
    connection = _SingleStatementConnection(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 3306,
        user=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        db=parts.path.lstrip("/") or None,
        connect_timeout=connect_timeout_s,
        autocommit=False,
    )
    try:
        # aiomysql.connect() would build its own Connection; this is the same two steps with ours.
        await connection._connect()
    except (OSError, aiomysql.Error) as error:
        logger.warning("mysql datasource unreachable: %s", error)
        raise failures.failed(failures.UNREACHABLE) from error
    return connection


async def run_mysql(
    url: str, statement: str, *, max_rows: int, timeout_ms: int, bounds: SessionBounds
) -> SqlResult:
    """Run one statement; the connection is closed, never committed, whatever happens."""
    connection = await connect_mysql(url, connect_timeout_s=bounds.connect_timeout_s)
    drained = False
    try:
        cursor = await connection.cursor(aiomysql.SSCursor)
        await _pin_session(connection, cursor, timeout_ms, bounds)
        await cursor.execute(statement)
        columns = [column[0] for column in cursor.description or ()]
        budget = RowBudget(
            max_rows=max_rows, max_bytes=bounds.max_result_bytes, value_chars=bounds.value_chars(len(columns))
        )
        drained = await _stream(cursor, budget) if cursor.description else True
        return SqlResult(columns=columns, rows=budget.rows, truncated=budget.truncated)
    except aiomysql.Error as error:
        # The server's error packet ends the statement: nothing is left unread (a lost connection
        # fails the goodbye too, and is then closed).
        drained = True
        raise _public(error, timeout_ms) from error
    finally:
        # Closing the socket drops unread rows (SSCursor.close() would read them all first) and
        # ends the transaction without a commit. With nothing left unread the session says goodbye
        # (COM_QUIT) first: a dropped socket counts as an aborted client, which MariaDB logs as a
        # warning, and the service's own reads (a dozen per inspect_database) would fill the log.
        if drained:
            await _quit(connection)
        else:
            connection.close()


async def _quit(connection: Any) -> None:
    try:
        await asyncio.wait_for(connection.ensure_closed(), timeout=_QUIT_TIMEOUT_S)
    except (OSError, TimeoutError):
        connection.close()


async def _pin_session(connection: Any, cursor: Any, timeout_ms: int, bounds: SessionBounds) -> None:
    mariadb = "mariadb" in connection.get_server_info().lower()
    # MariaDB: seconds, every statement kind; MySQL: milliseconds, SELECT only.
    limit = (
        f"max_statement_time = {timeout_ms / 1000:.3f}"
        if mariadb
        else f"max_execution_time = {int(timeout_ms)}"
    )
    # GROUP_CONCAT is the one way a single MariaDB value grows past max_allowed_packet's cut.
    await cursor.execute(
        f"SET SESSION sql_mode = '{PINNED_SQL_MODE}', SESSION {limit},"
        f" SESSION group_concat_max_len = {bounds.max_result_bytes}"
    )
    await cursor.execute("SET SESSION TRANSACTION READ ONLY")
    await cursor.execute("START TRANSACTION READ ONLY")


async def _stream(cursor: Any, budget: RowBudget) -> bool:
    """Read rows into `budget`; True when the result was read to its end (no row left unread)."""
    # MariaDB cannot describe a statement without running it through this client (aiomysql has no
    # server-side prepare), so values are not cut on the server: each arrives whole, bounded by the
    # server's max_allowed_packet (REPEAT and friends return NULL past it), is cut here, and only one
    # unread row is held at a time.
    while True:
        row = await cursor.fetchone()
        if row is None:
            return True
        if not budget.offer(row):
            return False


def _public(error: Exception, timeout_ms: int) -> SourceError:
    code = error.args[0] if error.args and isinstance(error.args[0], int) else None
    logger.info("mysql statement failed: %s", error)
    if code in _TIMEOUT_CODES:
        return failures.timed_out(timeout_ms)
    return failures.failed(_PUBLIC.get(code or 0, failures.FAILED))
