"""The datasource session itself holds, whatever the guard let through: statements are run with
`run_unchecked` (no guard) on real PostgreSQL and MariaDB, and side effects are read back by an
administrative connection. Memory is measured as the peak RSS growth of a subprocess making one call."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from decimal import Decimal
from urllib.parse import urlsplit

import psycopg
import pymysql
import pytest

from tests.conftest import require_service_url
from tests.support.throwaway_mariadb import throwaway_mariadb
from tools.base import EvidenceStatus, SourceError
from tools.sql import failures
from tools.sql.client import SqlDatasources
from tools.sql.mysql import PINNED_SQL_MODE
from tools.sql.session import SessionBounds

# A safety property, not a speed target: the old client grew by 2.9 GB on these statements.
_MAX_GROWTH_MB = 64
_RSS_PROBE = """
import asyncio, json, sys
from tools.sql.client import SqlDatasources

def kb(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field))

source = SqlDatasources({"d": sys.argv[1]})
asyncio.run(source.query(datasource="d", statement="SELECT 1", max_rows=1, timeout_ms=5000))
before = kb("VmRSS")
result = asyncio.run(source.query(datasource="d", statement=sys.argv[2], max_rows=200, timeout_ms=60000))
print(json.dumps({"before_kb": before, "peak_kb": kb("VmHWM"), "rows": len(result.rows),
                  "truncated": result.truncated, "first_len": len(result.rows[0][0])}))
"""


def _one_call_in_a_subprocess(url: str, statement: str) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, url, statement], capture_output=True, text=True, check=True
    )
    figures: dict[str, int] = json.loads(done.stdout)
    print(f"\n{statement}: {figures}")  # the figures for the note (pytest -s)
    return figures


def _pg_admin_url() -> str:
    return require_service_url("SUPERBIZ_TEST_PG_URL").replace("+psycopg", "", 1)


@pytest.fixture
def pg_table() -> Iterator[str]:
    """A canary table on the shared server; the name is unique to this test."""
    name = f"sb_canary_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(_pg_admin_url(), autocommit=True) as admin:
        admin.execute(f"CREATE TABLE {name} (i integer)")
    try:
        yield name
    finally:
        with psycopg.connect(_pg_admin_url(), autocommit=True) as admin:
            admin.execute(f"DROP TABLE IF EXISTS {name}")


def _pg_rows(table: str) -> int:
    with psycopg.connect(_pg_admin_url(), autocommit=True) as admin:
        row = admin.execute(f"SELECT count(*) FROM {table}").fetchone()
        return int(row[0]) if row else -1


_PG_PINNED = (
    "SELECT current_setting('transaction_read_only'), current_setting('statement_timeout'),"
    " current_setting('lock_timeout'), current_setting('idle_in_transaction_session_timeout'),"
    " current_setting('work_mem'), current_setting('temp_file_limit')"
)


@pytest.mark.postgres
async def test_postgres_session_is_read_only_with_its_limits_pinned() -> None:
    source = SqlDatasources({"pg": _pg_admin_url()}, bounds=SessionBounds(temp_file_limit_kb=1_024))
    result = await source.run_unchecked("pg", _PG_PINNED, max_rows=5, timeout_ms=3_000)
    # A superuser may set temp_file_limit, so it is pinned too.
    assert result.rows == [["on", "3s", "2s", "6s", "8MB", "1MB"]]


@pytest.mark.postgres
async def test_postgres_role_without_the_right_keeps_the_server_temp_file_limit() -> None:
    role, password = f"sb_ro_{uuid.uuid4().hex[:10]}", uuid.uuid4().hex
    parts = urlsplit(_pg_admin_url())
    with psycopg.connect(_pg_admin_url(), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
        server_limit = admin.execute("SHOW temp_file_limit").fetchone()
    try:
        url = f"postgresql://{role}:{password}@{parts.hostname}:{parts.port or 5432}{parts.path}"
        source = SqlDatasources({"pg": url}, bounds=SessionBounds(temp_file_limit_kb=1_024))
        result = await source.run_unchecked("pg", _PG_PINNED, max_rows=5, timeout_ms=3_000)
    finally:
        with psycopg.connect(_pg_admin_url(), autocommit=True) as admin:
            admin.execute(f"DROP ROLE {role}")
    # SET LOCAL temp_file_limit would abort the transaction (42501): it is skipped, the rest holds.
    assert server_limit is not None
    assert result.rows == [["on", "3s", "2s", "6s", "8MB", server_limit[0]]]


@pytest.mark.postgres
@pytest.mark.parametrize("kind", ["select", "show"])
async def test_postgres_refuses_a_stacked_statement_without_the_guard(pg_table: str, kind: str) -> None:
    source = SqlDatasources({"pg": _pg_admin_url()})
    with pytest.raises(SourceError) as caught:
        await source.run_unchecked(
            "pg", f"SELECT 1; COMMIT; INSERT INTO {pg_table} VALUES (1)", max_rows=5,
            timeout_ms=3_000, kind=kind,
        )  # fmt: skip
    assert caught.value.status is EvidenceStatus.ERROR
    assert _pg_rows(pg_table) == 0


@pytest.mark.postgres
async def test_postgres_write_in_one_statement_is_refused_by_the_transaction(pg_table: str) -> None:
    source = SqlDatasources({"pg": _pg_admin_url()})
    with pytest.raises(SourceError) as caught:
        await source.run_unchecked(
            "pg", f"INSERT INTO {pg_table} VALUES (1)", max_rows=5, timeout_ms=3_000, kind="show"
        )
    assert caught.value.public == failures.READ_ONLY
    assert _pg_rows(pg_table) == 0


@pytest.mark.postgres
async def test_postgres_cuts_long_values_on_the_server_and_keeps_numbers() -> None:
    source = SqlDatasources({"pg": _pg_admin_url()}, bounds=SessionBounds(max_result_bytes=3_000))
    # Unchecked: the guard refuses comments, and the wrapper must keep a trailing one inside.
    result = await source.run_unchecked(
        "pg", "SELECT repeat('x', 100000) AS a, 42.5::numeric AS n, 7 AS i, 'b' AS a -- trailing",
        max_rows=5, timeout_ms=3_000,
    )  # fmt: skip
    assert list(result.columns) == ["a", "n", "i", "a"]
    assert result.rows == [["x" * 750, Decimal("42.5"), 7, "b"]]
    assert result.truncated is True


@pytest.mark.postgres
def test_postgres_huge_result_grows_the_process_by_a_bounded_amount() -> None:
    figures = _one_call_in_a_subprocess(
        _pg_admin_url(), "SELECT repeat('x', 5000000) FROM generate_series(1, 201)"
    )
    assert figures["truncated"] and figures["rows"] == 1 and figures["first_len"] == 65_536
    assert figures["peak_kb"] - figures["before_kb"] < _MAX_GROWTH_MB * 1024


# --- MariaDB ------------------------------------------------------------------------------------


def _mysql_admin(url: str) -> pymysql.Connection[pymysql.cursors.Cursor]:
    parts = urlsplit(url)
    return pymysql.connect(
        host=parts.hostname or "127.0.0.1", port=parts.port or 3306, user=parts.username or "root",
        password=parts.password or "", autocommit=True,
    )  # fmt: skip


@pytest.fixture(scope="module")
def ansi_mariadb() -> Iterator[str]:
    """A throwaway server whose default mode is the one the issue's bypass used."""
    with throwaway_mariadb("--sql-mode=ANSI_QUOTES,NO_BACKSLASH_ESCAPES") as url:
        yield url


@pytest.fixture(params=["shared", "ansi"])
def mariadb_victim(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """(datasource URL, `db.table`) of an empty canary table, on the shared server or the ANSI one."""
    if request.param == "shared":
        server = require_service_url("SUPERBIZ_TEST_MYSQL_URL")
    else:
        server = request.getfixturevalue("ansi_mariadb")
    database = f"sb_sess_{uuid.uuid4().hex[:10]}"
    admin = _mysql_admin(server)
    with admin.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {database}")
        cursor.execute(f"CREATE TABLE {database}.victim (i INTEGER)")
    parts = urlsplit(server)
    try:
        yield parts._replace(path=f"/{database}").geturl(), f"{database}.victim"
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {database}")
        admin.close()


def _mysql_rows(url: str, table: str) -> int:
    with _mysql_admin(url) as admin, admin.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {table}")
        row = cursor.fetchone()
        return int(row[0]) if row else -1


@pytest.mark.mysql
async def test_mariadb_session_pins_mode_read_only_and_time_limit(mariadb_victim: tuple[str, str]) -> None:
    url, _ = mariadb_victim
    source = SqlDatasources({"m": url})
    result = await source.run_unchecked(
        "m", "SELECT @@SESSION.sql_mode, @@SESSION.tx_read_only, @@SESSION.max_statement_time",
        max_rows=5, timeout_ms=2_500,
    )  # fmt: skip
    assert result.rows == [[PINNED_SQL_MODE, 1, 2.5]]


@pytest.mark.mysql
async def test_mariadb_server_refuses_a_stacked_statement_without_the_guard(
    mariadb_victim: tuple[str, str],
) -> None:
    url, table = mariadb_victim
    source = SqlDatasources({"m": url})
    with pytest.raises(SourceError) as caught:
        await source.run_unchecked(
            "m", f"SELECT 1; COMMIT; INSERT INTO {table} VALUES (1); COMMIT", max_rows=5, timeout_ms=3_000
        )
    assert caught.value.public == failures.SYNTAX
    assert _mysql_rows(url, table) == 0


@pytest.mark.mysql
async def test_mariadb_issue_bypass_is_one_string_under_the_pinned_mode(
    mariadb_victim: tuple[str, str],
) -> None:
    """The issue's statement, judged one SELECT by the lexer, stacked an INSERT under
    NO_BACKSLASH_ESCAPES; with the mode pinned the server reads it as the lexer does."""
    url, table = mariadb_victim
    statement = (
        f"SELECT '\\', 1; COMMIT; SET SESSION TRANSACTION READ WRITE; INSERT INTO {table} VALUES (1);"
        " COMMIT; SELECT '"
    )
    source = SqlDatasources({"m": url})
    result = await source.run_unchecked("m", statement, max_rows=5, timeout_ms=3_000)
    assert len(result.rows) == 1 and len(result.rows[0]) == 1
    assert _mysql_rows(url, table) == 0


@pytest.mark.mysql
def test_mariadb_huge_result_grows_the_process_by_a_bounded_amount() -> None:
    figures = _one_call_in_a_subprocess(
        require_service_url("SUPERBIZ_TEST_MYSQL_URL"), "SELECT REPEAT('x', 5000000) FROM seq_1_to_201"
    )
    assert figures["truncated"] and figures["rows"] == 1 and figures["first_len"] == 65_536
    assert figures["peak_kb"] - figures["before_kb"] < _MAX_GROWTH_MB * 1024
