"""The role behind a SQL datasource is audited on real PostgreSQL and MariaDB: the superuser/root of CI
is refused, the README's recommended role passes, and start-up and /readyz act on the verdict."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import psycopg
import pymysql
import pytest
from fastapi import FastAPI

import api.composition
from api.app import create_app
from api.backends import PrivilegedDatasourceError
from api.settings import Settings
from tests.conftest import require_service_url
from tools.base import EvidenceStatus, SourceError
from tools.sql.roles import audit_role


def _pg_admin_url() -> str:
    return require_service_url("SUPERBIZ_TEST_PG_URL").replace("+psycopg", "", 1)


def _pg(sql: str) -> None:
    with psycopg.connect(_pg_admin_url(), autocommit=True) as admin:
        admin.execute(sql)


@pytest.fixture
def pg_reader() -> Iterator[tuple[str, str]]:
    """(URL, role) of the README's recommended PostgreSQL role, with one table it may read."""
    suffix = uuid.uuid4().hex[:10]
    role, schema, password = f"sb_reader_{suffix}", f"sb_roles_{suffix}", uuid.uuid4().hex
    database = urlsplit(_pg_admin_url()).path.lstrip("/")
    _pg(f"CREATE SCHEMA {schema}; CREATE TABLE {schema}.orders (id integer)")
    # The README's commands, with this test's names.
    _pg(
        f"CREATE ROLE {role} LOGIN PASSWORD '{password}'; GRANT pg_monitor TO {role};"
        f" GRANT CONNECT ON DATABASE {database} TO {role}; GRANT USAGE ON SCHEMA {schema} TO {role};"
        f" GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role};"
        f" ALTER ROLE {role} SET default_transaction_read_only = on"
    )
    parts = urlsplit(_pg_admin_url())
    try:
        yield f"postgresql://{role}:{password}@{parts.hostname}:{parts.port or 5432}{parts.path}", role
    finally:
        _pg(f"DROP SCHEMA {schema} CASCADE; DROP OWNED BY {role}; DROP ROLE {role}")


@pytest.mark.postgres
async def test_postgres_superuser_is_refused() -> None:
    audit = await audit_role(_pg_admin_url())
    assert "superuser" in audit.problems and "member of pg_read_server_files" in audit.problems


@pytest.mark.postgres
async def test_postgres_recommended_role_passes(pg_reader: tuple[str, str]) -> None:
    url, role = pg_reader
    audit = await audit_role(url)
    assert (audit.role, audit.problems) == (role, ())


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("grant", "problem"),
    [
        ("GRANT INSERT ON {schema}.orders TO {role}", "can write or owns tables"),
        ("GRANT UPDATE (id) ON {schema}.orders TO {role}", "can write or owns tables"),
        ("GRANT TRUNCATE ON {schema}.orders TO {role}", "can write or owns tables"),
        ("ALTER TABLE {schema}.orders OWNER TO {role}", "can write or owns tables"),
        ("GRANT CREATE ON SCHEMA {schema} TO {role}", "may create objects in a schema"),
        ("GRANT pg_signal_backend TO {role}", "member of pg_signal_backend"),
        ("GRANT pg_read_server_files TO {role}", "member of pg_read_server_files"),
        ("ALTER ROLE {role} CREATEROLE", "may create roles"),
    ],
)
async def test_postgres_one_more_right_is_refused(
    pg_reader: tuple[str, str], grant: str, problem: str
) -> None:
    url, role = pg_reader
    schema = role.replace("sb_reader_", "sb_roles_")
    _pg(grant.format(schema=schema, role=role))
    assert problem in (await audit_role(url)).problems


# --- MariaDB ------------------------------------------------------------------------------------


def _mysql(sql: str) -> None:
    parts = urlsplit(require_service_url("SUPERBIZ_TEST_MYSQL_URL"))
    with pymysql.connect(
        host=parts.hostname or "127.0.0.1", port=parts.port or 3306, user=parts.username or "root",
        password=parts.password or "", autocommit=True,
    ) as admin, admin.cursor() as cursor:  # fmt: skip
        for statement in sql.split(";"):
            cursor.execute(statement)


@pytest.fixture
def mysql_reader() -> Iterator[tuple[str, str]]:
    """(URL, user) of the README's recommended MariaDB user."""
    user, password = f"sb_reader_{uuid.uuid4().hex[:10]}", uuid.uuid4().hex
    _mysql(
        f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}';"
        f" GRANT SELECT, SHOW VIEW, PROCESS ON *.* TO '{user}'@'%'"
    )
    parts = urlsplit(require_service_url("SUPERBIZ_TEST_MYSQL_URL"))
    try:
        yield f"mysql://{user}:{password}@{parts.hostname}:{parts.port or 3306}{parts.path}", user
    finally:
        _mysql(f"DROP USER IF EXISTS '{user}'@'%'; DROP ROLE IF EXISTS {user}_role")


@pytest.mark.mysql
async def test_mariadb_root_is_refused() -> None:
    audit = await audit_role(require_service_url("SUPERBIZ_TEST_MYSQL_URL"))
    assert "holds ALL PRIVILEGES (root)" in audit.problems


@pytest.mark.mysql
async def test_mariadb_recommended_user_passes(mysql_reader: tuple[str, str]) -> None:
    url, user = mysql_reader
    audit = await audit_role(url)
    assert (audit.role, audit.problems) == (f"{user}@%", ())


@pytest.mark.mysql
@pytest.mark.parametrize(
    ("grant", "problem"),
    [
        ("GRANT INSERT ON *.* TO '{user}'@'%'", "holds write or administrative privileges"),
        ("GRANT FILE ON *.* TO '{user}'@'%'", "holds FILE"),
        ("GRANT SUPER ON *.* TO '{user}'@'%'", "holds SUPER"),
        ("GRANT SELECT ON *.* TO '{user}'@'%' WITH GRANT OPTION", "may grant privileges"),
        (
            "CREATE ROLE {user}_role; GRANT DELETE ON *.* TO {user}_role; GRANT {user}_role TO '{user}'@'%';"
            " SET DEFAULT ROLE {user}_role FOR '{user}'@'%'",
            "holds write or administrative privileges",
        ),
    ],
)
async def test_mariadb_one_more_privilege_is_refused(
    mysql_reader: tuple[str, str], grant: str, problem: str
) -> None:
    url, user = mysql_reader
    _mysql(grant.format(user=user))
    assert problem in (await audit_role(url)).problems


# --- start-up and /readyz -----------------------------------------------------------------------


@asynccontextmanager
async def _app(tmp_path: Path, **backends: Any) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'app.db'}", backends=backends)
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            yield application, http


@pytest.mark.postgres
async def test_start_up_refuses_a_superuser_datasource_naming_the_variable(tmp_path: Path) -> None:
    with pytest.raises(PrivilegedDatasourceError) as caught:
        async with _app(tmp_path, sql_datasources={"ops": _pg_admin_url()}):
            pass
    message = str(caught.value)
    assert "'ops'" in message and "SUPERBIZ_BACKENDS__SQL_DATASOURCES" in message
    assert "superuser" in message and "SUPERBIZ_BACKENDS__SQL_ALLOW_PRIVILEGED_ROLES" in message


@pytest.mark.postgres
async def test_lab_opt_out_serves_a_superuser_with_a_loud_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="superbiz.backends"):
        async with _app(
            tmp_path, sql_datasources={"ops": _pg_admin_url()}, sql_allow_privileged_roles=True
        ) as (_, http):
            ready = await http.get("/readyz")
    assert any(
        "UNSAFE" in record.getMessage() and "'ops'" in record.getMessage() for record in caplog.records
    )
    assert ready.status_code == 200
    assert ready.json()["data"]["checks"]["sql_datasources"]["ops"]["status"] == "allowed"


@pytest.mark.postgres
async def test_readyz_disables_a_datasource_granted_a_write_after_start_up(
    tmp_path: Path, pg_reader: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, role = pg_reader
    monkeypatch.setattr(api.composition, "SQL_ROLE_AUDIT_MAX_AGE_S", 0.0)
    async with _app(tmp_path, sql_datasources={"ops": url}) as (application, http):
        before = await http.get("/readyz")
        _pg(f"GRANT INSERT ON {role.replace('sb_reader_', 'sb_roles_')}.orders TO {role}")
        after = await http.get("/readyz")
        source = application.state.services.sql_roles
        with pytest.raises(SourceError) as caught:
            await source.query(datasource="ops", statement="SELECT 1", max_rows=1, timeout_ms=1_000)
    assert before.status_code == 200
    assert before.json()["data"]["checks"]["sql_datasources"]["ops"]["status"] == "ok"
    assert after.status_code == 503
    assert after.json()["data"]["checks"]["sql_datasources"]["ops"] == {
        "status": "refused",
        "detail": "role is not read-only: can write or owns tables",
    }
    assert caught.value.status is EvidenceStatus.REJECTED
