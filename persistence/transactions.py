"""One store transaction = one synchronous function, run where its backend runs it cheapest.

A store method writes its transaction as `def work(db: Session) -> T` (ordinary SQLAlchemy/SQLModel
calls, committing itself) and awaits `Transactions.run(work)`:

- PostgreSQL (and in-memory SQLite): the async session's `run_sync`, one greenlet for the whole
  transaction; each statement still awaits the async driver, as before.
- A SQLite file: the whole function runs in the database's one thread on a plain `sqlite3`
  connection. Through aiosqlite every cursor open, execute, fetch and close is a hop to the driver's
  thread and back to the event loop, and the only connection stayed checked out across each of
  those event-loop turns (about 28 per chat run): at concurrency 16 the connection, not the CPU, set
  the pace. Here a transaction is one hop and holds the connection only while SQLite works.
  One thread and one connection keep writers queued in order (never "database is locked" between
  them); `BEGIN IMMEDIATE` takes the write lock up front, so a transaction that reads before it
  writes never fails on a lock upgrade against another connection (tests, a second process), it
  waits `busy_timeout` instead.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.engine import URL, Engine
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker
from sqlmodel import Session
from sqlmodel.ext.asyncio.session import AsyncSession

T = TypeVar("T")


class SqliteThread:
    """A SQLite file's synchronous engine and the one thread every store transaction runs in."""

    def __init__(self, url: URL, busy_timeout_ms: int) -> None:
        self._busy_timeout_ms = busy_timeout_ms
        self.engine: Engine = sa.create_engine(
            url.set(drivername="sqlite"),
            hide_parameters=True,
            pool_size=1,
            max_overflow=0,
            # the pool hands its one connection to the one thread below, nothing else
            connect_args={"check_same_thread": False},
        )
        sa.event.listen(self.engine, "connect", self._on_connect)
        sa.event.listen(self.engine, "begin", _begin_immediate)
        self._executor: ThreadPoolExecutor | None = None
        self._disposed: Future[None] | None = None  # the last thread's `dispose`, maybe still queued

    def _on_connect(self, dbapi_connection: Any, _record: Any) -> None:
        # The driver's own transaction handling off: `_begin_immediate` emits BEGIN itself.
        dbapi_connection.isolation_level = None
        apply_sqlite_pragmas(dbapi_connection, self._busy_timeout_ms)

    async def run(self, work: Callable[[Session], T]) -> T:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")
            if self._disposed is not None:
                # A pool disposed while another thread checks out of it can lose its connection.
                self._executor.submit(self._disposed.result)
                self._disposed = None
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._transaction, work)

    def _transaction(self, work: Callable[[Session], T]) -> T:
        with Session(self.engine, expire_on_commit=False) as db:
            return work(db)  # leaving the block rolls back whatever `work` did not commit

    def dispose(self) -> None:
        """Close the connection (in its thread, after queued work) and end the thread; the next
        transaction starts a new one, as an async engine is usable again after `dispose()`."""
        executor, self._executor = self._executor, None
        if executor is None:
            self.engine.dispose()
            return
        self._disposed = executor.submit(self.engine.dispose)
        executor.shutdown(wait=False)


def apply_sqlite_pragmas(dbapi_connection: Any, busy_timeout_ms: int) -> None:
    """The settings every connection to the application's SQLite file runs with (both engines)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")  # SQLite ignores foreign keys otherwise
    cursor.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
    cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
    cursor.close()


def _begin_immediate(connection: sa.Connection) -> None:
    connection.exec_driver_sql("BEGIN IMMEDIATE")


_THREADS: weakref.WeakKeyDictionary[AsyncEngine, SqliteThread] = weakref.WeakKeyDictionary()


def attach_sqlite_thread(engine: AsyncEngine, url: URL, busy_timeout_ms: int) -> None:
    """Run the store transactions of `engine` (a SQLite file) in a thread of their own."""
    thread = SqliteThread(url, busy_timeout_ms)
    _THREADS[engine] = thread
    sa.event.listen(engine.sync_engine, "engine_disposed", lambda _engine: thread.dispose())


def transaction_engines(engine: AsyncEngine) -> list[Engine]:
    """The synchronous engines whose events see `engine`'s transactions (for counting them)."""
    thread = _THREADS.get(engine)
    return [engine.sync_engine] if thread is None else [engine.sync_engine, thread.engine]


class Transactions:
    """Runs a store's transactions for its sessionmaker's engine (see the module docstring)."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        bind = sessions.kw.get("bind")
        self._thread = _THREADS.get(bind) if isinstance(bind, AsyncEngine) else None

    async def run(self, work: Callable[[Session], T]) -> T:
        """`work(db)` in one transaction's session; it commits itself, anything else rolls back."""
        if self._thread is not None:
            return await self._thread.run(work)
        async with self._sessions() as db:
            # `AsyncSession` (SQLModel's) hands `run_sync` its `sync_session_class`, SQLModel's Session
            return await db.run_sync(cast(Callable[[orm.Session], T], work))
