"""The file logs source against the real log files of throwaway PostgreSQL, MariaDB and Redis servers
started here (never the shared ones): a real event is induced in each (a lock wait, a slow statement,
a failed login, a failed save) and the source must return it with its identity, level and time, its
continuation lines (PostgreSQL's DETAIL/CONTEXT/STATEMENT, the slow log's statement) in the entry."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pymysql
import pytest
import redis

from tests.conftest import IN_CI
from tests.support.throwaway_mariadb import throwaway_mariadb
from tests.support.throwaway_port import start_on_free_port
from tests.support.throwaway_postgres import throwaway_postgres
from tools.base import LogLine, LogQuery, TimeWindow
from tools.logfiles import LogFiles

_WAIT_S = 10.0


@pytest.fixture
def log_dir() -> Iterator[Path]:
    directory = Path(tempfile.mkdtemp(prefix="sb_logs_"))
    directory.chmod(0o777)  # the servers write here as their own users
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


async def find(source: LogFiles, since: datetime, **filters: object) -> list[LogLine]:
    """The lines the filters select since `since`, waiting for a server's log writer to flush."""
    deadline = time.monotonic() + _WAIT_S
    while True:
        window = TimeWindow(since - timedelta(seconds=2), datetime.now(UTC) + timedelta(seconds=2))
        lines = await source.query_range(LogQuery(window=window, limit=50, **filters))  # type: ignore[arg-type]
        if lines or time.monotonic() > deadline:
            return lines
        await asyncio.sleep(0.2)


def occurred(line: LogLine, before: datetime, after: datetime) -> bool:
    # Server logs keep milliseconds (MariaDB and the slow log: seconds).
    return before - timedelta(seconds=1) <= line.ts <= after + timedelta(seconds=1)


async def test_postgresql_lock_wait_slow_statement_and_failed_login(log_dir: Path) -> None:
    hba = log_dir / "pg_hba.conf"
    hba.write_text(
        "local all all trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n"
    )
    settings = (
        "logging_collector=on", f"log_directory={log_dir}", "log_filename=postgresql.log",
        "log_lock_waits=on", "deadlock_timeout=100ms", "log_min_duration_statement=200",
        f"hba_file={hba}", "log_timezone=UTC",
    )  # fmt: skip
    with throwaway_postgres(*settings) as url:
        source = LogFiles({"postgres": str(log_dir / "*.log")})
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("CREATE TABLE orders (id int PRIMARY KEY, status text)")
            admin.execute("INSERT INTO orders VALUES (1, 'new')")
            admin.execute("CREATE ROLE app LOGIN PASSWORD 'right-password'")

        started = datetime.now(UTC)
        _hold_a_row_lock(url, seconds=0.6)
        with psycopg.connect(url, autocommit=True) as slow:
            slow.execute("SELECT pg_sleep(0.3)")
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(url.replace("postgres@", "app:wrong-password@"), connect_timeout=3).close()
        ended = datetime.now(UTC)

        [waited] = await find(source, started, service="postgres", contains="still waiting for ShareLock")
        [slow_line] = await find(source, started, service="postgres", contains="pg_sleep(0.3)")
        [failed] = await find(source, started, service="postgres", level="fatal")

    assert (waited.labels["service"], waited.labels["level"]) == ("postgres", "info")  # PostgreSQL's LOG
    assert "DETAIL:  Process holding the lock:" in waited.message
    assert "STATEMENT:  UPDATE orders SET status = 'waiting' WHERE id = 1" in waited.message
    assert "duration:" in slow_line.message and slow_line.labels["level"] == "info"
    assert 'password authentication failed for user "app"' in failed.message
    assert "DETAIL:  Connection matched pg_hba.conf line 3" in failed.message
    assert all(occurred(line, started, ended) for line in (waited, slow_line, failed))


def _hold_a_row_lock(url: str, *, seconds: float) -> None:
    """One session updates the row and holds it `seconds`; another waits on it meanwhile."""
    with psycopg.connect(url) as holder:
        holder.execute("UPDATE orders SET status = 'held' WHERE id = 1")

        def wait_on_the_row() -> None:
            with psycopg.connect(url, autocommit=True) as waiter:
                waiter.execute("UPDATE orders SET status = 'waiting' WHERE id = 1")

        waiting = threading.Thread(target=wait_on_the_row)
        waiting.start()
        time.sleep(seconds)
        holder.commit()
        waiting.join(timeout=10)


async def test_mariadb_failed_login_and_slow_query(log_dir: Path) -> None:
    error_log, slow_log = log_dir / "error.log", log_dir / "slow.log"
    args = (f"--log-error={error_log}", "--slow-query-log=1", f"--slow-query-log-file={slow_log}",
            "--long-query-time=0.2", "--log-warnings=2")  # fmt: skip
    with throwaway_mariadb(*args) as url:
        port = urlsplit(url).port
        source = LogFiles({"mariadb": [str(error_log), str(slow_log)]})
        started = datetime.now(UTC)
        with pytest.raises(pymysql.err.OperationalError):
            pymysql.connect(host="127.0.0.1", port=port, user="app", password="wrong", connect_timeout=3)
        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
        try:
            with conn.cursor() as cursor:
                cursor.execute("SELECT SLEEP(0.4)")
        finally:
            conn.close()
        ended = datetime.now(UTC)

        [denied] = await find(source, started, service="mariadb", contains="Access denied for user 'app'")
        [slow] = await find(source, started, service="mariadb", contains="SLEEP(0.4)")

    assert denied.labels["level"] == "warn" and "[Warning]" in denied.message
    assert slow.labels["level"] == "warn"
    assert slow.message.startswith("# User@Host: root[root]") and "# Query_time: 0.4" in slow.message
    assert slow.message.rstrip().endswith("SELECT SLEEP(0.4);")
    assert occurred(denied, started, ended) and occurred(slow, started, ended)


@pytest.fixture
def redis_server(log_dir: Path) -> Iterator[redis.Redis]:
    if shutil.which("redis-server") is None:
        message = "redis-server is needed for a throwaway Redis"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    data = log_dir / "data"
    data.mkdir()

    def launch(port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(data), "--logfile", str(log_dir / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def answers(port: int) -> bool:
        with redis.Redis(host="127.0.0.1", port=port, socket_timeout=1) as probe:
            try:
                return bool(probe.ping())
            except redis.ConnectionError:
                return False

    server, port = start_on_free_port(launch, answers, timeout_s=_WAIT_S, what="throwaway Redis")
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)
    try:
        yield client
    finally:
        client.close()
        server.terminate()
        server.wait(timeout=10)


async def test_redis_failed_background_save(redis_server: redis.Redis, log_dir: Path) -> None:
    source = LogFiles({"redis": str(log_dir / "redis.log")})
    # The server's (empty) working directory disappears: the save cannot create its file.
    (log_dir / "data").rmdir()
    started = datetime.now(UTC)
    redis_server.bgsave()
    ended = datetime.now(UTC) + timedelta(seconds=2)

    failed = await find(source, started, service="redis", contains="Failed opening the temp RDB file")
    ready = await find(source, started - timedelta(minutes=1), service="redis", contains="Ready to accept")

    assert failed and failed[0].labels == {"service": "redis", "level": "warn"}  # Redis's `#`
    assert occurred(failed[0], started, ended)
    assert ready and ready[0].labels["level"] == "info"  # Redis's `*`
