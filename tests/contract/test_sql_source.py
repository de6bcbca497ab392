"""Contract of a SQL datasource, run the same way on the world fixture (SQLite), real MariaDB and
real PostgreSQL, each seen through a user that may only read."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pymysql
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import require_service_url
from tools.base import EvidenceStatus, SourceError, Sources, SqlSource
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.sql.client import SqlDatasources
from tools.sql.fixture import SqliteWorldDatasources
from tools.toolbox import Toolbox

ROWS = 120
SLOW = (
    "SELECT count(*) FROM orders a, orders b, orders c, orders d "
    "WHERE a.amount + b.amount + c.amount + d.amount < 0"
)


def _inserts() -> list[str]:
    statuses = ["paid", "pending", "failed"]
    return [
        f"INSERT INTO orders (id, status, amount) VALUES ({i}, '{statuses[i % 3]}', {i * 10})"
        for i in range(1, ROWS + 1)
    ]


CREATE = "CREATE TABLE orders (id INTEGER PRIMARY KEY, status VARCHAR(20), amount INTEGER)"


@dataclass
class Backend:
    name: str
    source: SqlSource
    checksum: Any  # () -> str, read with an administrative connection


def _sqlite_backend(tmp_path: Path) -> Backend:
    (tmp_path / "sql").mkdir()
    script = ";\n".join([CREATE, *_inserts()]) + ";\n"
    (tmp_path / "sql" / "shop.sql").write_text(script)
    source = SqliteWorldDatasources(tmp_path / "sql")

    def checksum() -> str:
        result = asyncio.run(
            source.query(
                datasource="shop",
                statement="SELECT id, status, amount FROM orders ORDER BY id",
                max_rows=10_000,
                timeout_ms=5_000,
            )
        )
        tables = asyncio.run(source.list_tables(datasource="shop", limit=100))
        return hashlib.sha256(repr((tables, result.rows)).encode()).hexdigest()

    return Backend("sqlite", source, checksum)


@pytest.fixture
def mariadb() -> Iterator[Backend]:
    parts = urlsplit(require_service_url("SUPERBIZ_TEST_MYSQL_URL"))
    admin_args = {
        "host": parts.hostname or "127.0.0.1",
        "port": parts.port or 3306,
        "user": parts.username or "root",
        "password": parts.password or "",
        "autocommit": True,
    }
    suffix = uuid.uuid4().hex[:10]
    database, user, password = f"sb_sql_{suffix}", f"sb_ro_{suffix}", f"pw_{suffix}"
    admin = pymysql.connect(**admin_args)
    with admin.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {database}")
        cursor.execute(f"USE {database}")
        cursor.execute(CREATE)
        for insert in _inserts():
            cursor.execute(insert)
        for host in ("%", "localhost", "127.0.0.1"):
            cursor.execute(f"CREATE USER '{user}'@'{host}' IDENTIFIED BY '{password}'")
            cursor.execute(f"GRANT SELECT ON {database}.* TO '{user}'@'{host}'")

    def checksum() -> str:
        with admin.cursor() as cursor:
            cursor.execute(f"SELECT id, status, amount FROM {database}.orders ORDER BY id")
            rows = cursor.fetchall()
            cursor.execute(f"SHOW TABLES FROM {database}")
            tables = cursor.fetchall()
        return hashlib.sha256(repr((tables, rows)).encode()).hexdigest()

    host = f"{admin_args['host']}:{admin_args['port']}"
    source = SqlDatasources({"shop": f"mysql://{user}:{password}@{host}/{database}"})
    try:
        yield Backend("mariadb", source, checksum)
    finally:
        with admin.cursor() as cursor:
            for host_name in ("%", "localhost", "127.0.0.1"):
                cursor.execute(f"DROP USER IF EXISTS '{user}'@'{host_name}'")
            cursor.execute(f"DROP DATABASE IF EXISTS {database}")
        admin.close()


@pytest.fixture
def postgres() -> Iterator[Backend]:
    url = require_service_url("SUPERBIZ_TEST_PG_URL").replace("+psycopg", "", 1)
    parts = urlsplit(url)
    suffix = uuid.uuid4().hex[:10]
    schema, role = f"sb_sql_{suffix}", f"sb_ro_{suffix}"
    admin = psycopg.connect(url, autocommit=True)
    admin.execute(f"CREATE SCHEMA {schema}")
    admin.execute(f"SET search_path TO {schema}")
    admin.execute(CREATE)
    for insert in _inserts():
        admin.execute(insert)
    admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw_{suffix}'")
    admin.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
    admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")

    def checksum() -> str:
        rows = admin.execute(f"SELECT id, status, amount FROM {schema}.orders ORDER BY id")
        return hashlib.sha256(repr(rows.fetchall()).encode()).hexdigest()

    netloc = f"{role}:pw_{suffix}@{parts.hostname}:{parts.port or 5432}"
    ro_url = f"postgresql://{netloc}{parts.path}?options=-csearch_path%3D{schema}"
    try:
        yield Backend("postgres", SqlDatasources({"shop": ro_url}), checksum)
    finally:
        admin.execute(f"DROP SCHEMA {schema} CASCADE")
        admin.execute(f"DROP OWNED BY {role}")
        admin.execute(f"DROP ROLE {role}")
        admin.close()


@pytest.fixture(params=["sqlite", pytest.param("mariadb", marks=pytest.mark.mysql),
                        pytest.param("postgres", marks=pytest.mark.postgres)])  # fmt: skip
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        return _sqlite_backend(tmp_path)
    fixture: Backend = request.getfixturevalue(request.param)
    return fixture


async def test_select_returns_columns_and_rows(backend: Backend) -> None:
    result = await backend.source.query(
        datasource="shop",
        statement="SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status",
        max_rows=10,
        timeout_ms=5_000,
    )
    assert [c.lower() for c in result.columns] == ["status", "n"]
    assert [(row[0], int(row[1])) for row in result.rows] == [
        ("failed", 40),
        ("paid", 40),
        ("pending", 40),
    ]
    assert result.truncated is False


async def test_list_tables_names_the_tables(backend: Backend) -> None:
    assert await backend.source.list_tables(datasource="shop", limit=10) == ["orders"]


async def test_row_cap_truncates_and_says_so(backend: Backend) -> None:
    result = await backend.source.query(
        datasource="shop", statement="SELECT id FROM orders ORDER BY id", max_rows=7,
        timeout_ms=5_000,
    )  # fmt: skip
    assert [int(row[0]) for row in result.rows] == list(range(1, 8))
    assert result.truncated is True


async def test_statement_timeout_is_a_timeout(backend: Backend) -> None:
    with pytest.raises(SourceError) as caught:
        await backend.source.query(datasource="shop", statement=SLOW, max_rows=5, timeout_ms=300)
    assert caught.value.status is EvidenceStatus.TIMEOUT


@pytest.mark.parametrize(
    "statement",
    [
        "DELETE FROM orders",
        "UPDATE orders SET amount = 0",
        "INSERT INTO orders (id, status, amount) VALUES (9999, 'x', 1)",
        "DROP TABLE orders",
        "SELECT 1; DELETE FROM orders",
        "SELECT * FROM orders FOR UPDATE",
    ],
)
async def test_writes_are_refused_and_change_nothing(backend: Backend, statement: str) -> None:
    before = await asyncio.to_thread(backend.checksum)
    with pytest.raises(SourceError) as caught:
        await backend.source.query(datasource="shop", statement=statement, max_rows=5, timeout_ms=5_000)
    assert caught.value.status is EvidenceStatus.REJECTED
    assert await asyncio.to_thread(backend.checksum) == before


async def test_unknown_datasource_fails_closed(backend: Backend) -> None:
    assert backend.source.datasources() == ["shop"]
    for call in (
        backend.source.query(datasource="app", statement="SELECT 1", max_rows=1, timeout_ms=500),
        backend.source.list_tables(datasource="app", limit=5),
    ):
        with pytest.raises(SourceError) as caught:
            await call
        assert caught.value.status is EvidenceStatus.REJECTED


async def test_unknown_table_error_is_public_and_safe(backend: Backend) -> None:
    with pytest.raises(SourceError) as caught:
        await backend.source.query(
            datasource="shop", statement="SELECT * FROM missing_table", max_rows=1,
            timeout_ms=5_000,
        )  # fmt: skip
    assert caught.value.status is EvidenceStatus.ERROR
    assert "missing_table" not in caught.value.public


# --- property: no statement through the tool changes data ---------------------------------------

_TABLES = st.sampled_from(["orders", "ORDERS", "`orders`", '"orders"', "Orders"])
_MUTATIONS = st.one_of(
    st.builds("DELETE FROM {} WHERE id > {}".format, _TABLES, st.integers(0, 200)),
    st.builds("UPDATE {} SET amount = {}".format, _TABLES, st.integers(-5, 5)),
    st.builds("insert into {} values ({}, 'x', 1)".format, _TABLES, st.integers(500, 900)),
    st.builds("SELECT 1; DROP TABLE {}".format, _TABLES),
    st.builds("WITH d AS (DELETE FROM {} RETURNING id) SELECT * FROM d".format, _TABLES),
    st.builds("SELECT * FROM {} FOR UPDATE".format, _TABLES),
    st.builds("select 1 /*!; delete from {} */".format, _TABLES),
    st.builds("TRUNCATE {}".format, _TABLES),
    st.builds("REPLACE INTO {} VALUES (1, 'y', 2)".format, _TABLES),
    st.builds("SELECT * INTO backup_{} FROM orders".format, st.integers(0, 99)),
    st.builds("CREATE TABLE t{} AS SELECT * FROM orders".format, st.integers(0, 99)),
    st.builds("ALTER TABLE {} ADD COLUMN c{} INT".format, _TABLES, st.integers(0, 9)),
    st.builds("SELECT 1 --1; DELETE FROM {}".format, _TABLES),
    st.just("PRAGMA query_only = OFF"),
    st.just("SET SESSION TRANSACTION READ WRITE"),
)
_READS = st.one_of(
    st.builds("SELECT id, amount FROM {} WHERE id < {}".format, _TABLES, st.integers(0, 50)),
    st.builds("SELECT count(*) FROM {}".format, _TABLES),
)
_STATEMENTS = st.one_of(_MUTATIONS, _READS, st.text(max_size=60))


@pytest.mark.parametrize("name", ["sqlite", pytest.param("mariadb", marks=pytest.mark.mysql)])
def test_no_generated_statement_changes_data(
    name: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend = _sqlite_backend(tmp_path) if name == "sqlite" else request.getfixturevalue(name)
    before = backend.checksum()
    statuses: set[EvidenceStatus] = set()

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(statements=st.lists(_STATEMENTS, min_size=1, max_size=4))
    def run_all(statements: list[str]) -> None:
        toolbox = Toolbox(Sources(sql=backend.source), ToolLimits(), EvidenceCache(ttl_s=1, capacity=8))

        async def call_each() -> None:
            run = RunEvidence(budget_bytes=1_000_000)
            for statement in statements:
                evidence = await toolbox.call(
                    "query_mysql", {"datasource": "shop", "statement": statement}, run
                )
                statuses.add(evidence.status)

        asyncio.run(call_each())
        assert backend.checksum() == before

    run_all()
    assert EvidenceStatus.REJECTED in statuses
    assert EvidenceStatus.OK in statuses
