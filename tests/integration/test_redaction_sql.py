"""Password hashes and secrets that real servers hand back in rows are masked before any evidence:
a SCRAM verifier and an md5 hash made by PostgreSQL, a native hash made by MariaDB, a DSN and an
environment line, in tables named by the test (the credential catalogs themselves are refused)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit

import psycopg
import pymysql
import pytest

from tests.conftest import require_service_url
from tools.base import Evidence, EvidenceStatus, Sources
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.sql.client import SqlDatasources
from tools.toolbox import Toolbox

DSN_PASSWORD = "Zq9-dsn-pw"
ENV_PASSWORD = "Zq9-env-pw"


async def _query(url: str, statement: str) -> Evidence:
    toolbox = Toolbox(
        Sources(sql=SqlDatasources({"db": url})), ToolLimits(), EvidenceCache(ttl_s=30, capacity=16)
    )
    return await toolbox.call(
        "query_mysql", {"datasource": "db", "statement": statement}, RunEvidence(budget_bytes=1_000_000)
    )


def _assert_masked(evidence: Evidence, secrets: list[str]) -> None:
    assert evidence.status is EvidenceStatus.OK, evidence.summary
    shown = json.dumps([evidence.summary, evidence.title, evidence.data, evidence.query])
    for secret in secrets:
        assert secret not in shown, f"{secret!r} reached the evidence"
    assert "[REDACTED]" in shown


def _pg_url() -> str:
    return require_service_url("SUPERBIZ_TEST_PG_URL").replace("+psycopg", "", 1)


@pytest.fixture
def pg_hashes() -> Iterator[tuple[str, list[str]]]:
    """A table holding what PostgreSQL itself stores for two throwaway roles, and those hashes."""
    suffix = uuid.uuid4().hex[:10]
    table, scram_role, md5_role = f"sb_secrets_{suffix}", f"sb_scram_{suffix}", f"sb_md5_{suffix}"
    with psycopg.connect(_pg_url(), autocommit=True) as admin:
        admin.execute("SET password_encryption = 'scram-sha-256'")
        admin.execute(f"CREATE ROLE {scram_role} LOGIN PASSWORD 'Zq9-scram-pw'")
        admin.execute("SET password_encryption = 'md5'")
        admin.execute(f"CREATE ROLE {md5_role} LOGIN PASSWORD 'Zq9-md5-pw'")
        admin.execute(f"CREATE TABLE {table} (rolname text, verifier text, note text)")
        admin.execute(
            f"INSERT INTO {table} SELECT rolname, rolpassword, %s FROM pg_authid WHERE rolname IN (%s, %s)",
            (
                f"dsn postgresql://app:{DSN_PASSWORD}@db/app env DB_PASSWORD={ENV_PASSWORD}",
                scram_role,
                md5_role,
            ),
        )
        rows = admin.execute(f"SELECT verifier FROM {table} ORDER BY rolname").fetchall()
    hashes = [str(row[0]) for row in rows]
    assert hashes[0].startswith("md5") and hashes[1].startswith("SCRAM-SHA-256$")  # sb_md5 < sb_scram
    try:
        yield table, hashes
    finally:
        with psycopg.connect(_pg_url(), autocommit=True) as admin:
            admin.execute(f"DROP TABLE IF EXISTS {table}")
            admin.execute(f"DROP ROLE IF EXISTS {scram_role}")
            admin.execute(f"DROP ROLE IF EXISTS {md5_role}")


@pytest.mark.postgres
async def test_postgres_password_hashes_and_credentials_in_rows_are_masked(
    pg_hashes: tuple[str, list[str]],
) -> None:
    table, hashes = pg_hashes
    # "verifier" names no secret: the hashes are known by their shape alone.
    evidence = await _query(_pg_url(), f"SELECT rolname, verifier, note FROM {table} ORDER BY rolname")
    bodies = [h.split("$", 1)[1] if h.startswith("SCRAM") else h[3:] for h in hashes]
    _assert_masked(evidence, [*bodies, *(b[-12:] for b in bodies), DSN_PASSWORD, ENV_PASSWORD])
    assert any(str(cell).startswith("SCRAM-SHA-256$") for row in evidence.data["rows"] for cell in row)


@pytest.fixture
def mysql_table() -> Iterator[tuple[str, str, str]]:
    """(datasource URL, table, native hash) in a throwaway database on the shared server."""
    server = require_service_url("SUPERBIZ_TEST_MYSQL_URL")
    parts = urlsplit(server)
    database = f"sb_secrets_{uuid.uuid4().hex[:10]}"
    admin = pymysql.connect(
        host=parts.hostname or "127.0.0.1", port=parts.port or 3306, user=parts.username or "root",
        password=parts.password or "", autocommit=True,
    )  # fmt: skip
    try:
        with admin.cursor() as cursor:
            cursor.execute("SELECT PASSWORD('Zq9-native-pw')")
            (native,) = cursor.fetchone() or ("",)
            cursor.execute(f"CREATE DATABASE {database}")
            cursor.execute(
                f"CREATE TABLE {database}.accounts (user VARCHAR(32), hash VARCHAR(64), note TEXT)"
            )
            cursor.execute(
                f"INSERT INTO {database}.accounts VALUES ('app', %s, %s)",
                (native, f"redis://:{DSN_PASSWORD}@cache:6379/0 PGPASSWORD={ENV_PASSWORD}"),
            )
        yield parts._replace(path=f"/{database}").geturl(), "accounts", str(native)
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {database}")
        admin.close()


@pytest.mark.mysql
async def test_mariadb_native_hashes_and_credentials_in_rows_are_masked(
    mysql_table: tuple[str, str, str],
) -> None:
    url, table, native = mysql_table
    assert native.startswith("*") and len(native) == 41
    evidence = await _query(url, f"SELECT user, hash, note FROM {table}")
    _assert_masked(evidence, [native[1:], native[-12:], DSN_PASSWORD, ENV_PASSWORD])
    assert evidence.data["rows"][0][1] == "*[REDACTED]"
