"""The hostile-SQL corpus through the real SqlDatasources on real PostgreSQL and MariaDB, once as a
superuser / root (so the guard alone is proven) and once as the recommended read-only role, plus a
throwaway MariaDB in ANSI_QUOTES,NO_BACKSLASH_ESCAPES mode. Side effects are judged by canaries."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import require_service_url
from tests.support.hostile_sql import entries_for
from tests.support.hostile_targets import (
    Outcome,
    Target,
    canary_files,
    mariadb_target,
    postgres_target,
    run_one,
    tally,
)
from tests.support.throwaway_mariadb import throwaway_mariadb
from tools.sql.client import SqlDatasources
from tools.sql.lexical import Dialect


async def _run_corpus(target: Target, role: str, dialect: Dialect) -> list[Outcome]:
    source = SqlDatasources({"t": target.urls[role]})
    return [await run_one(target, source, entry.sql) for entry in entries_for(dialect)]


def _check(outcomes: list[Outcome], dialect: Dialect) -> None:
    escaped = [(o.sql, o.escaped) for o in outcomes if o.escaped]
    assert escaped == []
    for entry, outcome in zip(entries_for(dialect), outcomes, strict=True):
        if entry.expect == "refuse":
            assert outcome.status == "refused", entry.sql
        else:
            assert outcome.status != "refused", entry.sql
    # The canaries can see an escape: the corpus does reach the database for the allowed reads.
    assert tally(outcomes)["ok"] > 20


@pytest.mark.postgres
@pytest.mark.parametrize("role", ["privileged", "readonly"])
async def test_corpus_changes_no_canary_on_postgres(role: str) -> None:
    with (
        canary_files() as (secret, out, _),
        postgres_target(require_service_url("SUPERBIZ_TEST_PG_URL"), secret, out) as target,
    ):
        outcomes = await _run_corpus(target, role, "postgres")
    _check(outcomes, "postgres")


@pytest.mark.mysql
@pytest.mark.parametrize("role", ["privileged", "readonly"])
async def test_corpus_changes_no_canary_on_mariadb(role: str) -> None:
    with (
        canary_files() as (secret, out, _),
        mariadb_target(require_service_url("SUPERBIZ_TEST_MYSQL_URL"), secret, out) as target,
    ):
        outcomes = await _run_corpus(target, role, "mysql")
    _check(outcomes, "mysql")


@pytest.mark.mysql
async def test_corpus_changes_no_canary_on_mariadb_in_ansi_no_backslash_mode() -> None:
    with (
        throwaway_mariadb("--sql-mode=ANSI_QUOTES,NO_BACKSLASH_ESCAPES") as url,
        canary_files() as (secret, out, _),
        mariadb_target(url, secret, out) as target,
    ):
        outcomes = await _run_corpus(target, "privileged", "mysql")
    _check(outcomes, "mysql")


# --- property: random token soup never writes and never reads a file ------------------------------

_TOKENS = st.sampled_from([
    "SELECT", "FROM", "victim", "INSERT", "INTO", "VALUES", "(", ")", ",", ";", "'", '"', "\\", "U&",
    "UESCAPE", "pg_read_file", "lo_import", "dblink_exec", "ts_stat", "query_to_xml", "COPY", "TO",
    "PROGRAM", "'{secret_file}'", "'{out_file}'", "'touch {out_file}'", "::text", ".", "x", "1",
    "WITH", "AS", "RETURNING", "DELETE", "EXPLAIN", "ANALYZE", "$$", "--", "/*", "*/", "E'", "\n",
    "pg_catalog", "unnest", "array[", "]", "CAST", "lo_export", "pg_ls_dir",
])  # fmt: skip


@pytest.mark.postgres
def test_random_token_soup_never_writes_or_reads_a_file() -> None:
    with (
        canary_files() as (secret, out, _),
        postgres_target(require_service_url("SUPERBIZ_TEST_PG_URL"), secret, out) as target,
    ):
        source = SqlDatasources({"t": target.urls["privileged"]})

        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(tokens=st.lists(_TOKENS, min_size=1, max_size=14))
        def soup(tokens: list[str]) -> None:
            outcome = asyncio.run(run_one(target, source, " ".join(tokens)))
            assert outcome.escaped == [], outcome

        soup()
    assert Path(out).exists() is False
