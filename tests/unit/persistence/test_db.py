"""Engine and migration plumbing that needs no server."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from persistence.db import head_revision, make_engine, sync_url
from persistence.records import as_utc, bounded


def test_sync_url_keeps_psycopg_and_swaps_aiosqlite() -> None:
    assert sync_url("sqlite+aiosqlite:///var/x.db").drivername == "sqlite"
    assert sync_url("postgresql+psycopg://u:p%40ss@h/db").drivername == "postgresql+psycopg"
    assert sync_url("postgresql+psycopg://u:p%40ss@h/db").password == "p@ss"


def test_head_revision_is_the_run_id_index_migration() -> None:
    assert head_revision() == "0003_run_id_indexes"


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
