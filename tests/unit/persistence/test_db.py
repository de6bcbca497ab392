"""Engine and migration plumbing that needs no server."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_connection
from sqlalchemy.ext.asyncio import AsyncConnection

from persistence.db import head_revision, make_engine, sync_url
from persistence.records import as_utc, bounded


def test_sync_url_keeps_psycopg_and_swaps_aiosqlite() -> None:
    assert sync_url("sqlite+aiosqlite:///var/x.db").drivername == "sqlite"
    assert sync_url("postgresql+psycopg://u:p%40ss@h/db").drivername == "postgresql+psycopg"
    assert sync_url("postgresql+psycopg://u:p%40ss@h/db").password == "p@ss"


def test_head_revision_is_the_case_principal_migration() -> None:
    assert head_revision() == "0005_investigation_indexes"


async def test_sqlite_engine_creates_its_directory_and_enforces_foreign_keys(
    tmp_path: Path,
) -> None:
    database = tmp_path / "deep" / "er" / "app.db"
    engine = make_engine(f"sqlite+aiosqlite:///{database}")
    try:
        assert database.parent.is_dir()
        async with engine.connect() as connection:
            pragmas = [
                (await connection.execute(sa.text(f"PRAGMA {name}"))).scalar_one()
                for name in ("foreign_keys", "journal_mode", "busy_timeout")
            ]
        assert pragmas == [1, "wal", 5000]
    finally:
        await engine.dispose()


def test_bounded_marks_cut_text() -> None:
    assert bounded("abcdef", 4) == "abc…" and bounded(None, 4) == "" and bounded("ab", 4) == "ab"


def test_naive_datetimes_are_read_as_utc() -> None:
    assert as_utc(datetime(2026, 1, 1)).tzinfo is UTC


async def _driver_of(connection: AsyncConnection) -> Any:
    return (await connection.get_raw_connection()).driver_connection


async def test_sqlite_connection_returned_inside_a_transaction_is_rolled_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'app.db'}")
    try:
        async with engine.begin() as connection:
            await connection.execute(sa.text("CREATE TABLE t (n INTEGER)"))
        async with engine.connect() as connection:
            # Driver-level work the engine does not know about: only the pool's reset can end it.
            driver = await _driver_of(connection)
            await driver.execute("BEGIN")
            await driver.execute("INSERT INTO t VALUES (1)")
            assert driver.in_transaction
        async with engine.connect() as connection:
            # The same pooled connection, kept (a failing reset would have closed it), and clean.
            assert await _driver_of(connection) is driver and not driver.in_transaction
            assert (await connection.execute(sa.text("SELECT count(*) FROM t"))).scalar_one() == 0
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    finally:
        await engine.dispose()


async def test_sqlite_connection_returned_after_a_commit_is_not_rolled_back_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each idle rollback is one more aiosqlite thread hop while the single connection is held.
    rollbacks: list[object] = []
    original = AsyncAdapt_aiosqlite_connection.rollback

    def counted(self: AsyncAdapt_aiosqlite_connection) -> None:
        rollbacks.append(self)
        original(self)

    monkeypatch.setattr(AsyncAdapt_aiosqlite_connection, "rollback", counted)
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'app.db'}")
    try:
        async with engine.begin() as connection:
            await connection.execute(sa.text("CREATE TABLE t (n INTEGER)"))
        rollbacks.clear()  # the engine's first connect resets the new connection once
        async with engine.begin() as connection:
            driver = await _driver_of(connection)
            await connection.execute(sa.text("INSERT INTO t VALUES (1)"))
        assert rollbacks == []
        async with engine.connect() as connection:
            assert await _driver_of(connection) is driver  # kept in the pool, not closed by a failure
            assert (await connection.execute(sa.text("SELECT count(*) FROM t"))).scalar_one() == 1
    finally:
        await engine.dispose()


async def test_statement_parameters_reach_neither_the_log_nor_the_error_even_at_debug(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="sqlalchemy.engine")  # statement logging switched on
    secret = "Zq9 plain words no pattern can see"
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'app.db'}")
    try:
        async with engine.begin() as connection:
            await connection.execute(sa.text("CREATE TABLE t (n INTEGER NOT NULL, s TEXT)"))
            await connection.execute(sa.text("INSERT INTO t VALUES (1, :s)"), {"s": secret})
        with pytest.raises(sa.exc.IntegrityError) as failed:
            async with engine.begin() as connection:
                await connection.execute(sa.text("INSERT INTO t VALUES (NULL, :s)"), {"s": secret})
    finally:
        await engine.dispose()
    assert "INSERT INTO t" in caplog.text and "parameters hidden" in caplog.text
    assert secret not in caplog.text and secret not in str(failed.value)
