"""inspect_database on real PostgreSQL and MariaDB clusters the tests start themselves (never the shared
servers), with real faults: a row lock held by an idle-in-transaction session with sessions queued behind
it, leaked idle connections and a long transaction; read through the least-privileged read-only role
(pg_monitor; PROCESS) and the whole boundary (guard, read-only session, role audit, bounds)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pymysql
import pytest

from tests.support.throwaway_mariadb import throwaway_mariadb
from tests.support.throwaway_postgres import throwaway_postgres
from tools.base import Evidence, EvidenceStatus, Sources
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.sql.audited import AuditedDatasources
from tools.sql.client import SqlDatasources
from tools.sql.guard import check_read_only
from tools.sql.introspection import ASPECTS
from tools.sql.lexical import Dialect
from tools.toolbox.boundary import Toolbox

BLOCKER, WAITER, LEAKER = "batch-reconciler", "checkout-api", "leaky-worker"
WAITERS, LEAKED = 3, 12
RO_PASSWORD = "ro-introspection-pw"
BOUND_S = 20.0


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


async def _inspect(url: str, **args: Any) -> Evidence:
    datasources = {"shop": url}
    source = AuditedDatasources(SqlDatasources(datasources), datasources, allow_privileged=False)
    toolbox = Toolbox(Sources(sql=source), ToolLimits(), EvidenceCache(ttl_s=0.001, capacity=4))
    return await toolbox.call("inspect_database", {"datasource": "shop", **args}, RunEvidence(1_000_000))


# --- PostgreSQL ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def postgres() -> Iterator[tuple[str, str]]:
    """(admin URL, read-only URL) of a cluster with table shop.public.orders and a pg_monitor reader."""
    with throwaway_postgres("max_connections=40") as admin:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("CREATE DATABASE shop")
            conn.execute(f"CREATE ROLE ro LOGIN PASSWORD '{RO_PASSWORD}'")
            conn.execute("GRANT pg_monitor TO ro")
            conn.execute("ALTER ROLE ro SET default_transaction_read_only = on")
        shop = admin.rsplit("/", 1)[0] + "/shop"
        with psycopg.connect(shop, autocommit=True) as conn:
            conn.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
            conn.execute("CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL)")
            conn.execute("INSERT INTO orders SELECT g, 'new' FROM generate_series(1, 50) g")
            conn.execute("GRANT SELECT ON orders TO ro")
        yield shop, f"postgresql://ro:{RO_PASSWORD}@127.0.0.1:{urlsplit(admin).port}/shop"


@contextmanager
def _pg_lock_and_leak(shop: str) -> Iterator[None]:
    """BLOCKER updates row 7 and sits idle in transaction; WAITERS sessions queue on the row; LEAKER
    holds LEAKED idle connections. All undone on exit."""
    with ExitStack() as undo:
        blocker = undo.enter_context(psycopg.connect(shop, application_name=BLOCKER))
        blocker.execute("UPDATE orders SET status = 'reconciling' WHERE id = 7")

        def wait_on_row() -> None:
            options = "-c statement_timeout=60000"  # the bound, should the blocker never let go
            with (
                psycopg.connect(shop, application_name=WAITER, options=options) as conn,
                suppress(psycopg.errors.QueryCanceled),
            ):
                conn.execute("UPDATE orders SET status = 'paid' WHERE id = 7")

        threads = [threading.Thread(target=wait_on_row, daemon=True) for _ in range(WAITERS)]
        for thread in threads:
            thread.start()
        undo.callback(_release, blocker.rollback, threads)
        for _ in range(LEAKED):
            undo.enter_context(psycopg.connect(shop, application_name=LEAKER, autocommit=True))
        with psycopg.connect(shop, autocommit=True) as probe:
            _wait_for(
                lambda: (
                    probe.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    ).fetchone()
                    == (WAITERS,)
                ),
                f"{WAITERS} sessions waiting on the lock",
            )
        time.sleep(1.1)  # the blocker's transaction is then at least a second old
        yield


def _release(rollback: Callable[[], None], waiters: list[threading.Thread]) -> None:
    """The blocker lets go first; its waiters then finish and their threads end."""
    rollback()
    for thread in waiters:
        thread.join(timeout=30)


def test_every_canned_statement_passes_the_guard_unchanged() -> None:
    """The guard accepts the introspection statements as written (no allowlist weakened for them)."""
    from tools.sql import introspect_mysql, introspect_postgres

    dialects: tuple[tuple[Any, Dialect], ...] = (
        (introspect_postgres, "postgres"),
        (introspect_mysql, "mysql"),
    )
    for module, dialect in dialects:
        texts = [v for k, v in vars(module).items() if k.startswith("_") and isinstance(v, str)]
        names = {"total": "total_exec_time", "mean": "mean_exec_time"}
        statements = [t.format(**names) for t in texts if "SELECT" in t]
        statements += list(getattr(module, "_REPLICA_STATUS", ()))
        assert len(statements) >= 10
        for statement in statements:
            if statement.lstrip().upper().startswith(("SELECT", "SHOW")):
                verdict = check_read_only(statement, dialect=dialect)
                assert verdict.allowed, (statement, verdict.reason)
        assert all(callable(getattr(module, aspect)) for aspect in ASPECTS)


async def test_postgres_names_the_blocker_the_queue_and_the_leak(postgres: tuple[str, str]) -> None:
    shop, reader = postgres
    with _pg_lock_and_leak(shop):
        evidence = await _inspect(reader)
    assert evidence.status is EvidenceStatus.OK, evidence.summary
    state = evidence.data["introspection"]
    [head] = [b for b in state["blocking"]["blockers"] if b["head_of_chain"]]
    assert head["application"] == BLOCKER
    assert head["state"] == "idle in transaction"
    assert head["xact_age_s"] >= 1
    assert head["waiting_total"] == WAITERS
    assert head["waiting_applications"] == {WAITER: WAITERS}
    # The blocker's statement as a fingerprint: the literals it carried never leave the database.
    assert head["query"] == "UPDATE orders SET status = ? WHERE id = ?"
    assert "reconciling" not in str(evidence.data)
    assert state["blocking"]["waiting_sessions"] == WAITERS

    sessions = state["sessions"]
    assert sessions["max_connections"] == 40
    leak = next(a for a in sessions["by_application"] if a["application"] == LEAKER)
    assert leak["sessions"] == LEAKED and leak["states"] == {"idle": LEAKED}
    assert sessions["by_application"][0]["application"] == LEAKER  # the largest holder first
    assert sessions["total"] >= LEAKED + WAITERS + 1

    oldest = state["transactions"]["open"][0]
    assert (oldest["application"], oldest["state"]) == (BLOCKER, "idle in transaction")
    assert state["lock_waits"]["relations"][0]["relation"] == "public.orders"
    assert state["lock_waits"]["relations"][0]["waiting_sessions"] >= 1

    statements = state["statements"]
    assert statements["available"] is False and "pg_stat_statements" in statements["reason"]
    assert state["replication"]["role"] == "primary" and state["replication"]["replicas"] == []
    assert any(d["database"] == "shop" and d["bytes"] > 0 for d in state["sizes"]["databases"])
    # The line an SRE reads first names the blocker, its pid and the sessions behind it.
    assert f"{BLOCKER} (pid {head['pid']}, idle in transaction" in evidence.summary
    assert f"blocks {WAITERS} sessions ({WAITER} {WAITERS})" in evidence.summary


async def test_postgres_without_pg_monitor_sees_no_other_sessions(postgres: tuple[str, str]) -> None:
    """Why the README asks for pg_monitor: a plain role sees other users' sessions without their queries
    or states, so the blocker's state is unknown to it."""
    shop, _ = postgres
    with psycopg.connect(shop.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE ROLE plain LOGIN PASSWORD '{RO_PASSWORD}'")
    with _pg_lock_and_leak(shop):
        evidence = await _inspect(f"postgresql://plain:{RO_PASSWORD}@127.0.0.1:{urlsplit(shop).port}/shop")
    assert evidence.status is EvidenceStatus.OK, evidence.summary
    blockers = evidence.data["introspection"]["blocking"]["blockers"]
    assert all(b["state"] == "unknown" for b in blockers)


async def test_postgres_top_statements_when_pg_stat_statements_is_loaded() -> None:
    with throwaway_postgres("shared_preload_libraries=pg_stat_statements") as admin:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION pg_stat_statements")
            conn.execute("CREATE ROLE ro LOGIN PASSWORD 'x'; GRANT pg_monitor TO ro")
            for n in range(20):
                conn.execute("SELECT count(*) FROM generate_series(1, %s)", (10_000 + n,))
        reader = f"postgresql://ro:x@127.0.0.1:{urlsplit(admin).port}/postgres"
        evidence = await _inspect(reader, aspects=["statements"])
    assert evidence.status is EvidenceStatus.OK, evidence.summary
    top = evidence.data["introspection"]["statements"]["top"]
    assert any("generate_series" in t["query"] and t["calls"] >= 20 for t in top), top


# --- MariaDB ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mariadb() -> Iterator[tuple[dict[str, Any], str]]:
    """(root connection kwargs, read-only URL) of a server with shop.orders and a SELECT+PROCESS reader."""
    with throwaway_mariadb("--max-connections=45") as url:
        port = urlsplit(url).port
        root = {"host": "127.0.0.1", "port": port, "user": "root", "autocommit": True}
        conn = pymysql.connect(**root)
        with conn.cursor() as cursor:
            cursor.execute("CREATE DATABASE shop")
            cursor.execute("CREATE TABLE shop.orders (id INT PRIMARY KEY, status VARCHAR(16)) ENGINE=InnoDB")
            cursor.execute("INSERT INTO shop.orders SELECT seq, 'new' FROM shop.seq_1_to_50")
            for host in ("localhost", "%"):  # 127.0.0.1 resolves to localhost, where an anonymous user waits
                for user in (BLOCKER, WAITER, LEAKER):
                    cursor.execute(f"CREATE USER '{user}'@'{host}'")
                    cursor.execute(f"GRANT SELECT, UPDATE ON shop.* TO '{user}'@'{host}'")
                cursor.execute(f"CREATE USER 'ro'@'{host}' IDENTIFIED BY '{RO_PASSWORD}'")
                cursor.execute(f"GRANT SELECT, PROCESS ON *.* TO 'ro'@'{host}'")
        conn.close()
        yield root, f"mysql://ro:{RO_PASSWORD}@127.0.0.1:{port}/shop"


@contextmanager
def _mariadb_lock_and_leak(root: dict[str, Any]) -> Iterator[None]:
    def session(user: str) -> Any:
        return pymysql.connect(host="127.0.0.1", port=root["port"], user=user, database="shop")

    with ExitStack() as undo:
        blocker = session(BLOCKER)
        undo.callback(blocker.close)
        with blocker.cursor() as cursor:
            cursor.execute("START TRANSACTION")
            cursor.execute("UPDATE orders SET status = 'reconciling' WHERE id = 7")

        def wait_on_row() -> None:
            conn = session(WAITER)
            with suppress(pymysql.err.OperationalError), conn.cursor() as cursor:
                cursor.execute("SET SESSION innodb_lock_wait_timeout = 60")
                cursor.execute("UPDATE orders SET status = 'paid' WHERE id = 7")
            conn.close()

        threads = [threading.Thread(target=wait_on_row, daemon=True) for _ in range(WAITERS)]
        for thread in threads:
            thread.start()
        undo.callback(_release, blocker.rollback, threads)
        for _ in range(LEAKED):
            undo.callback(session(LEAKER).close)
        probe = pymysql.connect(**root)
        undo.callback(probe.close)

        def waiting() -> bool:
            with probe.cursor() as cursor:
                cursor.execute(
                    "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'"
                )
                return bool(cursor.fetchone() == (WAITERS,))

        _wait_for(waiting, f"{WAITERS} transactions in LOCK WAIT")
        time.sleep(1.1)
        yield


async def test_mariadb_names_the_blocker_the_queue_and_the_leak(mariadb: tuple[dict[str, Any], str]) -> None:
    root, reader = mariadb
    with _mariadb_lock_and_leak(root):
        evidence = await _inspect(reader)
    assert evidence.status is EvidenceStatus.OK, evidence.summary
    state = evidence.data["introspection"]
    [head] = [b for b in state["blocking"]["blockers"] if b["head_of_chain"]]
    assert (head["application"], head["state"]) == (BLOCKER, "idle in transaction")
    assert head["waiting_total"] == WAITERS and head["waiting_applications"] == {WAITER: WAITERS}
    assert head["xact_age_s"] >= 1
    sessions = state["sessions"]
    assert sessions["max_connections"] == 45
    leak = sessions["by_application"][0]  # the largest holder first
    assert (leak["application"], leak["sessions"], leak["states"]) == (LEAKER, LEAKED, {"idle": LEAKED})
    oldest = state["transactions"]["open"][0]
    assert (oldest["application"], oldest["state"]) == (BLOCKER, "idle in transaction")
    assert state["lock_waits"]["relations"][0]["relation"] == "shop.orders"
    assert state["lock_waits"]["relations"][0]["waiting_sessions"] == WAITERS
    # performance_schema is off by default on MariaDB: the result says so rather than failing.
    assert state["statements"] == {
        "available": False,
        "reason": "performance_schema is off (start the server with performance_schema=ON)",
    }
    assert state["replication"]["role"] == "primary"
    assert "SLAVE MONITOR" in state["replication"]["replica_status"]  # PROCESS alone cannot read it
    assert any(d["database"] == "shop" for d in state["sizes"]["databases"])
    assert "reconciling" not in str(evidence.data)


async def test_sqlite_world_datasource_answers_empty() -> None:
    from pathlib import Path

    from tools.sql.fixture import SqliteWorldDatasources

    source = SqliteWorldDatasources(Path(__file__).parents[1] / "data/worlds/warehouse/sql")
    names = source.datasources()
    toolbox = Toolbox(Sources(sql=source), ToolLimits(), EvidenceCache(ttl_s=0.001, capacity=4))
    evidence = await toolbox.call("inspect_database", {"datasource": names[0]}, RunEvidence(1_000_000))
    assert evidence.status is EvidenceStatus.EMPTY
    assert "PostgreSQL and MariaDB/MySQL" in evidence.summary


async def test_mariadb_reads_leave_no_aborted_clients_and_no_access_denied(
    mariadb: tuple[dict[str, Any], str],
) -> None:
    """Every statement read to its end says goodbye (COM_QUIT): the service's own reads are never logged
    by MariaDB as aborted connections, which a log source would then read as trouble. Nor does a role
    without the replica grant ask for replica status (a refusal counts in Access_denied_errors, which
    the mysqld exporter then shows rising with every diagnosis)."""
    root, reader = mariadb

    def status(name: str) -> int:
        conn = pymysql.connect(**root)
        try:
            with conn.cursor() as cursor:
                cursor.execute(f"SHOW GLOBAL STATUS LIKE '{name}'")
                row = cursor.fetchone()
                return int(row[1]) if row else -1
        finally:
            conn.close()

    before = status("Aborted_clients"), status("Access_denied_errors")
    evidence = await _inspect(reader)
    assert evidence.status is EvidenceStatus.OK, evidence.summary
    assert "SLAVE MONITOR" in evidence.data["introspection"]["replication"]["replica_status"]
    assert (status("Aborted_clients"), status("Access_denied_errors")) == before
