"""Named read-only SQL datasources on MySQL/MariaDB (aiomysql) and PostgreSQL (psycopg).

Every statement passes the guard, then runs in a read-only transaction with its limits pinned on the
session (postgres.py, mysql.py), rows streamed under a row cap and a byte budget; it is never committed.
The role behind each URL is audited separately (roles.py), at start-up and in /readyz.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from tools.base import SourceError, SourceHealth, SqlResult
from tools.sql import failures
from tools.sql.guard import check_read_only
from tools.sql.lexical import Dialect
from tools.sql.mysql import run_mysql
from tools.sql.postgres import run_postgres
from tools.sql.session import SessionBounds

_MYSQL_SCHEMES = {"mysql", "mariadb"}
_PG_SCHEMES = {"postgresql", "postgres"}
_MYSQL_TABLES = (
    "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name"
)
_PG_TABLES = (
    "SELECT CASE WHEN table_schema = current_schema() THEN table_name "
    "ELSE table_schema || '.' || table_name END FROM information_schema.tables "
    "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"
)


def dialect_of_url(url: str) -> Dialect:
    scheme = urlsplit(url).scheme.split("+", 1)[0].lower()
    if scheme in _MYSQL_SCHEMES:
        return "mysql"
    if scheme in _PG_SCHEMES:
        return "postgres"
    raise ValueError(f"unsupported SQL datasource scheme {scheme!r}")


class SqlDatasources:
    """SqlSource over `name -> URL`; names not in the mapping fail closed."""

    def __init__(
        self,
        urls: Mapping[str, str],
        *,
        connect_timeout_s: float = 5.0,
        bounds: SessionBounds | None = None,
    ) -> None:
        self._urls = dict(urls)
        self._dialects = {name: dialect_of_url(url) for name, url in self._urls.items()}
        self._bounds = bounds or SessionBounds(connect_timeout_s=connect_timeout_s)

    async def health(self) -> SourceHealth:
        if not self._urls:
            return SourceHealth(ok=False, reason="no SQL datasources are configured")
        broken = []
        for name in self._urls:
            try:
                await self.run_unchecked(name, "SELECT 1", max_rows=1, timeout_ms=2_000)
            except SourceError:
                broken.append(name)
        if broken:
            return SourceHealth(ok=False, reason=f"unreachable: {', '.join(broken)}")
        return SourceHealth(ok=True)

    def datasources(self) -> list[str]:
        return sorted(self._urls)

    def dialect(self, datasource: str) -> str:
        return self._dialect_of(datasource)

    async def list_tables(self, *, datasource: str, limit: int) -> list[str]:
        dialect = self._dialect_of(datasource)
        statement = _MYSQL_TABLES if dialect == "mysql" else _PG_TABLES
        result = await self.run_unchecked(datasource, statement, max_rows=limit, timeout_ms=5_000)
        return [str(row[0]) for row in result.rows]

    async def query(self, *, datasource: str, statement: str, max_rows: int, timeout_ms: int) -> SqlResult:
        verdict = check_read_only(statement, dialect=self._dialect_of(datasource))
        if not verdict.allowed:
            raise failures.refused(verdict)
        return await self.run_unchecked(
            datasource, statement, max_rows=max_rows, timeout_ms=timeout_ms, kind=verdict.kind
        )

    async def run_unchecked(
        self,
        datasource: str,
        statement: str,
        *,
        max_rows: int,
        timeout_ms: int,
        kind: str | None = "select",
    ) -> SqlResult:
        """Run `statement` WITHOUT the guard: only for the service's own statements, and for tests
        proving that the session alone (read-only, single statement, pinned mode) holds."""
        dialect = self._dialect_of(datasource)
        url = self._urls[datasource]
        if dialect == "mysql":
            return await run_mysql(
                url, statement, max_rows=max_rows, timeout_ms=timeout_ms, bounds=self._bounds
            )
        return await run_postgres(
            url, statement, max_rows=max_rows, timeout_ms=timeout_ms, bounds=self._bounds,
            streamed=kind == "select",
        )  # fmt: skip

    def _dialect_of(self, datasource: str) -> Dialect:
        dialect = self._dialects.get(datasource)
        if dialect is None:
            raise failures.unknown_datasource(datasource)
        return dialect
