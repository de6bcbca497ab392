"""World SQL datasources: each `<world>/sql/NAME.sql` loaded into its own in-memory SQLite database.

Statements pass the same read-only guard as the real datasources; the database is then locked with
`PRAGMA query_only`, an authorizer that allows only reads, and a progress-handler timeout.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from tools.base import SourceHealth, SqlResult
from tools.sql import failures
from tools.sql.guard import check_read_only

logger = logging.getLogger(__name__)

_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION}
_RECURSIVE = getattr(sqlite3, "SQLITE_RECURSIVE", 33)
_PROGRESS_OPS = 1_000  # check the deadline every this many virtual-machine instructions


class SqliteWorldDatasources:
    """SqlSource over a world's `sql/` folder; a missing folder means no datasources."""

    def __init__(self, directory: Path) -> None:
        self._databases: dict[str, sqlite3.Connection] = {}
        self._locks: dict[str, threading.Lock] = {}
        for script in sorted(directory.glob("*.sql")) if directory.is_dir() else []:
            self._databases[script.stem] = _load(script)
            self._locks[script.stem] = threading.Lock()

    async def health(self) -> SourceHealth:
        if not self._databases:
            return SourceHealth(ok=False, reason="the world has no SQL datasources")
        return SourceHealth(ok=True)

    def datasources(self) -> list[str]:
        return sorted(self._databases)

    def dialect(self, datasource: str) -> str:
        return "sqlite"

    async def list_tables(self, *, datasource: str, limit: int) -> list[str]:
        statement = (
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        result = await self._run(datasource, statement, max_rows=limit, timeout_ms=5_000)
        return [str(row[0]) for row in result.rows]

    async def query(self, *, datasource: str, statement: str, max_rows: int, timeout_ms: int) -> SqlResult:
        verdict = check_read_only(statement, dialect="sqlite")
        if not verdict.allowed:
            raise failures.refused(verdict)
        return await self._run(datasource, statement, max_rows=max_rows, timeout_ms=timeout_ms)

    async def _run(self, datasource: str, statement: str, *, max_rows: int, timeout_ms: int) -> SqlResult:
        database = self._databases.get(datasource)
        if database is None:
            raise failures.unknown_datasource(datasource)
        lock = self._locks[datasource]
        return await asyncio.to_thread(_execute, database, lock, statement, max_rows, timeout_ms)

    def close(self) -> None:
        for database in self._databases.values():
            database.close()


def _load(script: Path) -> sqlite3.Connection:
    # check_same_thread=False: calls run in worker threads, serialised by a per-database lock.
    database = sqlite3.connect(":memory:", check_same_thread=False)
    database.executescript(script.read_text(encoding="utf-8"))
    database.commit()
    database.execute("PRAGMA query_only = ON")
    database.set_authorizer(_authorize)
    return database


def _authorize(action: int, *_: Any) -> int:
    if action in _ALLOWED_ACTIONS or action == _RECURSIVE:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def _execute(
    database: sqlite3.Connection,
    lock: threading.Lock,
    statement: str,
    max_rows: int,
    timeout_ms: int,
) -> SqlResult:
    deadline = time.monotonic() + timeout_ms / 1000
    with lock:
        database.set_progress_handler(lambda: int(time.monotonic() > deadline), _PROGRESS_OPS)
        try:
            cursor = database.execute(statement)
            rows = cursor.fetchmany(max_rows + 1)
            columns = [column[0] for column in cursor.description or ()]
            cursor.close()
        except sqlite3.Error as error:
            raise _public(error, timeout_ms) from error
        finally:
            database.set_progress_handler(None, 0)
            database.rollback()
    return SqlResult(
        columns=columns, rows=[list(row) for row in rows[:max_rows]], truncated=len(rows) > max_rows
    )


def _public(error: sqlite3.Error, timeout_ms: int) -> Exception:
    text = str(error).lower()
    logger.info("sqlite statement failed: %s", error)
    if "interrupted" in text:
        return failures.timed_out(timeout_ms)
    if "no such table" in text:
        return failures.failed(failures.UNKNOWN_TABLE)
    if "no such column" in text:
        return failures.failed(failures.UNKNOWN_COLUMN)
    if "syntax error" in text:
        return failures.failed(failures.SYNTAX)
    if "readonly" in text or "read-only" in text:
        return failures.failed(failures.READ_ONLY)
    if "not authorized" in text or "prohibited" in text:
        return failures.failed(failures.DENIED)
    return failures.failed(failures.FAILED)
