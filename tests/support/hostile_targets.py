"""Canaried targets for the hostile-SQL corpus: a throwaway database with a victim table, a secret
file, a file path nobody may write, a live canary connection holding a lock, and the password hashes
that must never come back. A side effect is judged by these canaries, never by the verdict text."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pymysql

from tests.support.hostile_sql import fill
from tools.base import EvidenceStatus, SourceError, SqlSource

VICTIM_ROWS = [(1, "a"), (2, "b"), (3, "c")]
STATUS_NAMES = {
    EvidenceStatus.REJECTED: "refused",
    EvidenceStatus.ERROR: "errored",
    EvidenceStatus.TIMEOUT: "timed out",
}


@dataclass
class Target:
    """One database seen through one role, with the canaries that judge what a statement did."""

    values: dict[str, str]
    secrets: list[str]  # text that must never appear in a result
    out_file: Path
    snapshot: Callable[[], Any]  # every canary's state, read with an administrative connection
    intruders: Callable[[], list[str]]  # lock takers or waiters seen while a statement runs
    urls: dict[str, str] = field(default_factory=dict)  # role -> datasource URL


@dataclass
class Outcome:
    sql: str
    status: str  # ok / refused / errored / timed out
    escaped: list[str]  # the canaries that changed


@contextmanager
def canary_files() -> Iterator[tuple[Path, Path, str]]:
    """A secret file with unique content and a path to be left unwritten, in a directory the
    database servers could write to (so an escape would show)."""
    root = Path(tempfile.mkdtemp(prefix="sb_hostile_"))
    root.chmod(0o777)
    secret = f"sbsecret{uuid.uuid4().hex}"
    (root / "secret.txt").write_text(secret)
    (root / "secret.txt").chmod(0o644)
    try:
        yield root / "secret.txt", root / "out.txt", secret
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def run_one(target: Target, source: SqlSource, sql: str) -> Outcome:
    statement = fill(sql, target.values)
    before = target.snapshot()
    task = asyncio.create_task(
        source.query(datasource="t", statement=statement, max_rows=5, timeout_ms=1_000)
    )
    seen: list[str] = []
    while not task.done():
        seen += target.intruders()
        await asyncio.wait({task}, timeout=0.05)
    status, text = "ok", ""
    try:
        result = task.result()
        text = repr((result.columns, result.rows))
    except SourceError as error:
        status = STATUS_NAMES.get(error.status, "errored")
    # A statement the guard refused never reached the server (`SqlDatasources.query` checks before it
    # connects): a lock seen meanwhile is another session's (a previous statement's connection being
    # reset), not this one's. The canaries below still judge every statement.
    escaped = [f"lock:{who}" for who in sorted(set(seen))] if status != "refused" else []
    escaped += [f"result holds secret {i}" for i, secret in enumerate(target.secrets) if secret in text]
    after = target.snapshot()
    escaped += [name for name in before if before[name] != after[name]]
    if target.out_file.exists():
        escaped.append("out_file written")
        target.out_file.unlink()
    return Outcome(sql, status, escaped)


def tally(outcomes: list[Outcome]) -> Counter[str]:
    return Counter("escaped" if o.escaped else o.status for o in outcomes)


def _admin_pg(url: str, database: str | None = None) -> psycopg.Connection[Any]:
    parts = urlsplit(url.replace("+psycopg", "", 1))
    netloc = parts.netloc
    path = f"/{database}" if database else parts.path
    return psycopg.connect(f"postgresql://{netloc}{path}", autocommit=True)


@contextmanager
def postgres_target(server_url: str, secret_file: Path, out_file: Path) -> Iterator[Target]:
    """A throwaway database on the server of `server_url` (a superuser URL) with dblink, a victim
    table, a canary connection holding an advisory lock, and two datasources: the superuser
    (`privileged`) and the recommended read-only role (`readonly`)."""
    suffix = uuid.uuid4().hex[:10]
    db, role, app, key = f"sb_hostile_{suffix}", f"sb_ro_{suffix}", f"sb_canary_{suffix}", "7242001"
    server = _admin_pg(server_url)
    server.execute(f'CREATE DATABASE "{db}"')
    admin = _admin_pg(server_url, db)
    canary: psycopg.Connection[Any] | None = None
    try:
        admin.execute("CREATE EXTENSION IF NOT EXISTS dblink")
        admin.execute("CREATE TABLE victim (id int PRIMARY KEY, note text); CREATE SEQUENCE victim_seq")
        admin.execute("INSERT INTO victim VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw_{suffix}'")
        admin.execute(f"GRANT pg_monitor TO {role}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
        admin.execute(f"ALTER ROLE {role} SET default_transaction_read_only = on")
        hashed = admin.execute(f"SELECT rolpassword FROM pg_authid WHERE rolname = '{role}'").fetchone()
        parts = urlsplit(server_url.replace("+psycopg", "", 1))
        hostport = f"{parts.hostname}:{parts.port or 5432}"
        canary = psycopg.connect(f"postgresql://{parts.netloc}/{db}?application_name={app}", autocommit=True)
        canary.execute(f"SELECT pg_advisory_lock({key})")
        pid = str(canary.info.backend_pid)
        secret = secret_file.read_text()

        def snapshot() -> dict[str, Any]:
            assert canary is not None
            return {
                "victim": admin.execute("SELECT * FROM victim ORDER BY id").fetchall(),
                "stats_reset": admin.execute(
                    "SELECT stats_reset FROM pg_stat_database WHERE datname = current_database()"
                ).fetchall(),
                "large objects": admin.execute("SELECT count(*) FROM pg_largeobject_metadata").fetchall(),
                "canary alive": _alive(canary),
                "secret file": secret_file.read_text(),
            }

        def intruders() -> list[str]:
            rows = admin.execute(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = %s AND pid <> %s",
                (int(key), int(pid)),
            ).fetchall()
            return [str(row[0]) for row in rows]

        yield Target(
            values={
                "secret_file": str(secret_file), "out_file": str(out_file), "canary_pid": pid,
                "canary_app": app, "lock_key": key, "lock_name": app,
                "dsn": f"host={parts.hostname} port={parts.port or 5432} dbname={db} user={parts.username}",
            },
            secrets=[secret, str(hashed[0]) if hashed else "SCRAM-SHA-256$"],
            out_file=out_file, snapshot=snapshot, intruders=intruders,
            urls={
                "privileged": f"postgresql://{parts.netloc}/{db}",
                "readonly": f"postgresql://{role}:pw_{suffix}@{hostport}/{db}",
            },
        )  # fmt: skip
    finally:
        if canary is not None:
            canary.close()
        admin.close()
        server.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        server.execute(f"DROP ROLE IF EXISTS {role}")
        server.close()


def _alive(connection: Any) -> bool:
    try:
        if isinstance(connection, psycopg.Connection):
            connection.execute("SELECT 1")
        else:
            connection.ping(reconnect=False)
        return True
    except (psycopg.Error, pymysql.err.Error):
        return False


@contextmanager
def mariadb_target(server_url: str, secret_file: Path, out_file: Path) -> Iterator[Target]:
    """A throwaway database on the MariaDB of `server_url` (a root URL), a victim table, a canary
    connection holding a user lock, and the `privileged` (root) and `readonly` datasources."""
    parts = urlsplit(server_url)
    suffix = uuid.uuid4().hex[:10]
    db, user, lock = f"sb_hostile_{suffix}", f"sb_ro_{suffix}", f"sb_canary_{suffix}"
    args: dict[str, Any] = {
        "host": parts.hostname or "127.0.0.1", "port": parts.port or 3306,
        "user": parts.username or "root", "password": parts.password or "", "autocommit": True,
    }  # fmt: skip
    admin = pymysql.connect(**args)
    canary = pymysql.connect(**args)
    cursor = admin.cursor()
    try:
        cursor.execute(f"CREATE DATABASE {db}")
        cursor.execute(f"CREATE TABLE {db}.victim (id INT PRIMARY KEY, note VARCHAR(20))")
        cursor.execute(f"INSERT INTO {db}.victim VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        cursor.execute(f"CREATE SEQUENCE {db}.victim_seq")
        for host in ("%", "localhost", "127.0.0.1"):
            cursor.execute(f"CREATE USER '{user}'@'{host}' IDENTIFIED BY 'pw_{suffix}'")
            cursor.execute(f"GRANT SELECT, PROCESS, SHOW VIEW ON *.* TO '{user}'@'{host}'")
        cursor.execute(f"SELECT authentication_string FROM mysql.user WHERE user = '{user}' LIMIT 1")
        hashed = str(cursor.fetchone()[0])
        canary_cursor = canary.cursor()
        canary_cursor.execute(f"SELECT GET_LOCK('{lock}', 0)")
        pid = str(canary.thread_id())

        def snapshot() -> dict[str, Any]:
            cursor.execute(f"SELECT * FROM {db}.victim ORDER BY id")
            rows = cursor.fetchall()
            cursor.execute(f"SELECT IS_USED_LOCK('{lock}')")
            holder = cursor.fetchone()
            return {"victim": rows, "lock holder": holder, "canary alive": _alive(canary),
                    "secret file": secret_file.read_text()}  # fmt: skip

        def intruders() -> list[str]:
            cursor.execute(
                "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = %s AND ID <> %s "
                "AND STATE LIKE '%%lock%%'",
                (db, int(pid)),
            )
            return [str(row[0]) for row in cursor.fetchall()]

        host = f"{args['host']}:{args['port']}"
        root = f"{args['user']}:{args['password']}@" if args["password"] else f"{args['user']}@"
        yield Target(
            values={"secret_file": str(secret_file), "out_file": str(out_file), "canary_pid": pid,
                    "canary_app": lock, "lock_key": "7242001", "lock_name": lock, "dsn": ""},
            secrets=[secret_file.read_text(), hashed],
            out_file=out_file, snapshot=snapshot, intruders=intruders,
            urls={"privileged": f"mysql://{root}{host}/{db}",
                     "readonly": f"mysql://{user}:pw_{suffix}@{host}/{db}"},
        )  # fmt: skip
    finally:
        canary.close()
        for host_name in ("%", "localhost", "127.0.0.1"):
            cursor.execute(f"DROP USER IF EXISTS '{user}'@'{host_name}'")
        cursor.execute(f"DROP DATABASE IF EXISTS {db}")
        admin.close()
