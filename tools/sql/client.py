"""Named read-only SQL datasources on MySQL/MariaDB (aiomysql) and PostgreSQL (psycopg).

Every statement passes the guard, then runs in a read-only transaction with a server-side statement
timeout, fetching at most `max_rows + 1` rows through an unbuffered cursor; it is never committed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

import aiomysql
import psycopg
from psycopg import errors as pg_errors

from tools.base import SourceError, SourceHealth, SqlResult
from tools.sql import failures
from tools.sql.guard import check_read_only
from tools.sql.lexical import Dialect

logger = logging.getLogger(__name__)

_MYSQL_SCHEMES = {"mysql", "mariadb"}
_PG_SCHEMES = {"postgresql", "postgres"}
# MariaDB max_statement_time, MySQL max_execution_time, and "query interrupted".
_MYSQL_TIMEOUT_CODES = {1969, 3024, 1317}
_MYSQL_PUBLIC = {
    1146: failures.UNKNOWN_TABLE,
    1054: failures.UNKNOWN_COLUMN,
    1064: failures.SYNTAX,
    1792: failures.READ_ONLY,
    1142: failures.DENIED,
    1143: failures.DENIED,
    1370: failures.DENIED,
}
_PG_PUBLIC = {
    "42P01": failures.UNKNOWN_TABLE,
    "42703": failures.UNKNOWN_COLUMN,
    "42601": failures.SYNTAX,
    "25006": failures.READ_ONLY,
    "42501": failures.DENIED,
}
_MYSQL_TABLES = (
    "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name"
)
_PG_TABLES = (
    "SELECT CASE WHEN table_schema = current_schema() THEN table_name "
    "ELSE table_schema || '.' || table_name END FROM information_schema.tables "
    "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"
)


def _dialect(url: str) -> Dialect:
    scheme = urlsplit(url).scheme.split("+", 1)[0].lower()
    if scheme in _MYSQL_SCHEMES:
        return "mysql"
    if scheme in _PG_SCHEMES:
        return "postgres"
    raise ValueError(f"unsupported SQL datasource scheme {scheme!r}")


class SqlDatasources:
    """SqlSource over `name -> URL`; names not in the mapping fail closed."""

    def __init__(self, urls: Mapping[str, str], *, connect_timeout_s: float = 5.0) -> None:
        self._urls = dict(urls)
        self._dialects = {name: _dialect(url) for name, url in self._urls.items()}
        self._connect_timeout_s = connect_timeout_s

    async def health(self) -> SourceHealth:
        if not self._urls:
            return SourceHealth(ok=False, reason="no SQL datasources are configured")
        broken = []
        for name in self._urls:
            try:
                await self._run(name, "SELECT 1", max_rows=1, timeout_ms=2_000, kind="select")
            except SourceError:
                broken.append(name)
        if broken:
            return SourceHealth(ok=False, reason=f"unreachable: {', '.join(broken)}")
        return SourceHealth(ok=True)

    def datasources(self) -> list[str]:
        return sorted(self._urls)

    async def list_tables(self, *, datasource: str, limit: int) -> list[str]:
        dialect = self._dialect_of(datasource)
        statement = _MYSQL_TABLES if dialect == "mysql" else _PG_TABLES
        result = await self._run(datasource, statement, max_rows=limit, timeout_ms=5_000)
        return [str(row[0]) for row in result.rows]

    async def query(self, *, datasource: str, statement: str, max_rows: int, timeout_ms: int) -> SqlResult:
        verdict = check_read_only(statement, dialect=self._dialect_of(datasource))
        if not verdict.allowed:
            raise failures.refused(verdict)
        return await self._run(
            datasource, statement, max_rows=max_rows, timeout_ms=timeout_ms, kind=verdict.kind
        )

    def _dialect_of(self, datasource: str) -> Dialect:
        dialect = self._dialects.get(datasource)
        if dialect is None:
            raise failures.unknown_datasource(datasource)
        return dialect

    async def _run(
        self,
        datasource: str,
        statement: str,
        *,
        max_rows: int,
        timeout_ms: int,
        kind: str | None = "select",
    ) -> SqlResult:
        dialect = self._dialect_of(datasource)
        url = self._urls[datasource]
        if dialect == "mysql":
            return await _mysql(url, statement, max_rows, timeout_ms, self._connect_timeout_s)
        return await _postgres(
            url, statement, max_rows, timeout_ms, self._connect_timeout_s, kind == "select"
        )


def _result(columns: list[str], rows: list[Any], max_rows: int) -> SqlResult:
    return SqlResult(
        columns=columns,
        rows=[list(row) for row in rows[:max_rows]],
        truncated=len(rows) > max_rows,
    )


async def _mysql(
    url: str, statement: str, max_rows: int, timeout_ms: int, connect_timeout_s: float
) -> SqlResult:
    parts = urlsplit(url)
    try:
        connection = await aiomysql.connect(
            host=parts.hostname or "127.0.0.1",
            port=parts.port or 3306,
            user=unquote(parts.username or ""),
            password=unquote(parts.password or ""),
            db=parts.path.lstrip("/") or None,
            connect_timeout=connect_timeout_s,
            autocommit=False,
        )
    except (OSError, aiomysql.Error) as error:
        logger.warning("mysql datasource unreachable: %s", error)
        raise failures.failed(failures.UNREACHABLE) from error
    try:
        cursor = await connection.cursor(aiomysql.SSCursor)
        await _mysql_timeout(cursor, timeout_ms)
        await cursor.execute("SET SESSION TRANSACTION READ ONLY")
        await cursor.execute("START TRANSACTION READ ONLY")
        await cursor.execute(statement)
        columns = [column[0] for column in cursor.description or ()]
        rows = await cursor.fetchmany(max_rows + 1) if cursor.description else []
        if len(rows) <= max_rows:
            await cursor.close()
            await connection.rollback()
        # Otherwise unread rows remain: closing the connection drops them and rolls back.
        return _result(columns, list(rows), max_rows)
    except aiomysql.Error as error:
        raise _mysql_public(error, timeout_ms) from error
    finally:
        connection.close()


async def _mysql_timeout(cursor: Any, timeout_ms: int) -> None:
    try:  # MariaDB: seconds, every statement kind
        await cursor.execute(f"SET SESSION max_statement_time = {timeout_ms / 1000:.3f}")
    except aiomysql.Error:  # MySQL: milliseconds, SELECT only
        await cursor.execute(f"SET SESSION max_execution_time = {int(timeout_ms)}")


def _mysql_public(error: Exception, timeout_ms: int) -> SourceError:
    code = error.args[0] if error.args and isinstance(error.args[0], int) else None
    logger.info("mysql statement failed: %s", error)
    if code in _MYSQL_TIMEOUT_CODES:
        return failures.timed_out(timeout_ms)
    return failures.failed(_MYSQL_PUBLIC.get(code or 0, failures.FAILED))


async def _postgres(
    url: str,
    statement: str,
    max_rows: int,
    timeout_ms: int,
    connect_timeout_s: float,
    server_cursor: bool,
) -> SqlResult:
    conninfo = url.replace("+psycopg", "", 1).replace("postgres://", "postgresql://", 1)
    try:
        connection = await psycopg.AsyncConnection.connect(
            conninfo, connect_timeout=max(1, int(connect_timeout_s)), autocommit=False
        )
    except psycopg.Error as error:
        logger.warning("postgres datasource unreachable: %s", error.sqlstate)
        raise failures.failed(failures.UNREACHABLE) from error
    try:
        await connection.execute("SET TRANSACTION READ ONLY")
        await connection.execute(f"SET LOCAL statement_timeout = {int(timeout_ms)}")
        # A named (server-side) cursor streams a SELECT; other reads are small.
        cursor = connection.cursor(name="superbiz_read") if server_cursor else connection.cursor()
        async with cursor:
            await cursor.execute(statement)
            columns = [column.name for column in cursor.description or ()]
            rows = await cursor.fetchmany(max_rows + 1) if cursor.description else []
        return _result(columns, list(rows), max_rows)
    except pg_errors.QueryCanceled as error:
        raise failures.timed_out(timeout_ms) from error
    except psycopg.Error as error:
        logger.info("postgres statement failed: %s", error.sqlstate)
        raise failures.failed(_PG_PUBLIC.get(error.sqlstate or "", failures.FAILED)) from error
    finally:
        await _close_postgres(connection)


async def _close_postgres(connection: psycopg.AsyncConnection[Any]) -> None:
    try:
        await asyncio.shield(connection.rollback())
    except psycopg.Error:
        logger.debug("rollback failed; closing anyway", exc_info=True)
    finally:
        await connection.close()
