"""Engines, sessions and schema migrations of the application database.

Nothing is built at import: the composition root calls `make_engine` / `make_sessionmaker`, and
`upgrade_head` (synchronous; run it with `asyncio.to_thread`) before serving.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry, PoolResetState
from sqlmodel.ext.asyncio.session import AsyncSession

from persistence import tables
from persistence.transactions import apply_sqlite_pragmas, attach_sqlite_thread

# Any constant works as long as every worker uses the same one: it names "the schema migration".
_MIGRATION_LOCK_KEY = 0x5B12_A6E7
SQLITE_BUSY_TIMEOUT_MS = 5_000


def make_engine(
    url: str, *, pool_size: int = 10, max_overflow: int = 10, pool_timeout_s: float = 5.0
) -> AsyncEngine:
    """An async engine for `sqlite+aiosqlite://` or `postgresql+psycopg://` URLs.

    Statement parameters (answers, summaries, questions) never reach a log or an error message, even
    at DEBUG: `hide_parameters` on every engine.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        _ensure_sqlite_directory(parsed)
        # SQLite has one writer: one pooled connection makes writers queue here, in order, instead
        # of failing with "database is locked" when the event loop is busy past the busy timeout.
        engine = create_async_engine(
            parsed,
            hide_parameters=True,
            pool_size=1,
            max_overflow=0,
            pool_timeout=max(30.0, pool_timeout_s),
            pool_reset_on_return=None,  # `_sqlite_reset` below does it, only when it is needed
        )
        sa.event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        sa.event.listen(engine.sync_engine, "reset", _sqlite_reset)
        if _is_file(parsed):
            # the run store's transactions: one thread hop each (`persistence.transactions`)
            attach_sqlite_thread(engine, parsed, SQLITE_BUSY_TIMEOUT_MS)
        return engine
    return create_async_engine(
        parsed,
        hide_parameters=True,
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_timeout=pool_timeout_s,
        pool_pre_ping=True,
    )


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep attributes loaded after commit (records are built after it)."""
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    apply_sqlite_pragmas(dbapi_connection, SQLITE_BUSY_TIMEOUT_MS)


def _sqlite_reset(dbapi_connection: Any, record: ConnectionPoolEntry, state: PoolResetState) -> None:
    """Roll back a connection returned to the pool only when it holds an open transaction.

    The pool's own reset rolls back every returned connection, even right after a commit; through
    aiosqlite that idle rollback is one more thread hop while the single connection is held (two of
    the 30 driver calls a run made). `in_transaction` reads SQLite's autocommit flag without a hop.
    """
    if state.terminate_only or not state.asyncio_safe or record.driver_connection is None:
        return
    try:
        open_transaction = record.driver_connection.in_transaction
    except ValueError:  # aiosqlite: the connection is already closed
        return
    if open_transaction:
        dbapi_connection.rollback()


def _is_file(url: URL) -> bool:
    database = url.database or ""
    return bool(database) and database != ":memory:" and not database.startswith("file:")


def _ensure_sqlite_directory(url: URL) -> None:
    if _is_file(url):
        Path(url.database or "").parent.mkdir(parents=True, exist_ok=True)


# --- migrations ----------------------------------------------------------------------------------


def sync_url(url: str) -> URL:
    """The synchronous twin of an application URL (psycopg does both; aiosqlite -> pysqlite)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return parsed.set(drivername="sqlite")
    return parsed


def _alembic_config(url: URL) -> Config:
    config = Config()
    script_location = importlib.resources.files("migrations")
    config.set_main_option("script_location", str(script_location))
    # ConfigParser interpolates '%': a percent-encoded password would otherwise break it.
    rendered = url.render_as_string(hide_password=False).replace("%", "%%")
    config.set_main_option("sqlalchemy.url", rendered)
    return config


@contextmanager
def _migration_connection(url: str) -> Iterator[tuple[Config, Connection]]:
    """A connection holding the migration lock on PostgreSQL, with an Alembic config bound to it.

    No SQLite pragmas here on purpose: with foreign_keys=ON, batch mode's table copy-and-drop
    would cascade-delete child rows.
    """
    parsed = sync_url(url)
    if parsed.get_backend_name() == "sqlite":
        _ensure_sqlite_directory(parsed)
    engine = sa.create_engine(parsed, poolclass=sa.pool.NullPool, hide_parameters=True)
    try:
        with engine.connect() as connection:
            locked = connection.dialect.name == "postgresql"
            if locked:
                # Session-level lock: two workers starting at once migrate one after the other.
                connection.execute(sa.select(sa.func.pg_advisory_lock(_MIGRATION_LOCK_KEY)))
                connection.commit()
            config = _alembic_config(parsed)
            config.attributes["connection"] = connection
            try:
                yield config, connection
                connection.commit()
            finally:
                if locked:
                    connection.rollback()
                    connection.execute(sa.select(sa.func.pg_advisory_unlock(_MIGRATION_LOCK_KEY)))
                    connection.commit()
    finally:
        engine.dispose()


def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at `url` up to `revision`."""
    with _migration_connection(url) as (config, _connection):
        command.upgrade(config, revision)


def upgrade_head(url: str) -> None:
    """Migrate the database at `url` to the newest revision (safe when several workers race)."""
    upgrade(url, "head")


def downgrade(url: str, revision: str) -> None:
    """Migrate the database at `url` down to `revision` (`base` removes every table)."""
    with _migration_connection(url) as (config, _connection):
        command.downgrade(config, revision)


def current_revision(url: str) -> str | None:
    """The revision the database at `url` is at, or None when it was never migrated."""
    with _migration_connection(url) as (_config, connection):
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str:
    """The newest revision shipped with the code."""
    config = _alembic_config(make_url("sqlite://"))
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:
        raise RuntimeError("no migration revisions are shipped")
    return head


def check_drift(url: str) -> list[str]:
    """Differences between the tables in code and the database at `url`; empty means none.

    A database that is not at the head revision is reported as drift too.
    """
    with _migration_connection(url) as (_config, connection):
        context = MigrationContext.configure(
            connection,
            opts={"compare_type": True, "render_as_batch": connection.dialect.name == "sqlite"},
        )
        problems: list[str] = []
        current = context.get_current_revision()
        if current != head_revision():
            problems.append(f"database at revision {current}, code at {head_revision()}")
        problems.extend(repr(diff) for diff in compare_metadata(context, tables.metadata))
        return problems
