"""A throwaway PostgreSQL cluster (initdb in a temporary directory) on a free loopback port, for what the
shared server must never see (held locks, leaked connections); stopped and removed afterwards.
The lab (tests/lab/stack.py) starts its own the same way."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from tests.conftest import IN_CI
from tests.support.throwaway_port import start_on_free_port

PG_BIN = Path("/usr/lib/postgresql/15/bin")
_START_TIMEOUT_S = 30.0


def _require_binaries() -> None:
    if not (PG_BIN / "initdb").exists() or os.geteuid() != 0:
        message = f"a throwaway PostgreSQL needs root and {PG_BIN / 'initdb'}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def throwaway_postgres(*settings: str) -> Iterator[str]:
    """Yield `postgresql://postgres@127.0.0.1:PORT/postgres` of a fresh cluster started with `settings`
    (each `name=value`) on a free port (`urlsplit(url).port`)."""
    _require_binaries()
    root = Path(tempfile.mkdtemp(prefix="sb_pg_"))
    root.chmod(0o755)
    shutil.chown(root, "postgres")
    data = root / "data"
    # initdb refuses root: the cluster belongs to the postgres user, as on a real host.
    subprocess.run(
        [str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
        check=True, capture_output=True, user="postgres",
    )  # fmt: skip
    options = ["-c", "listen_addresses=127.0.0.1"] + [arg for s in settings for arg in ("-c", s)]

    def launch(port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(PG_BIN / "postgres"), "-D", str(data), "-p", str(port), "-k", str(root), *options],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, user="postgres",
        )  # fmt: skip

    try:
        server, port = start_on_free_port(
            launch, lambda port: _answers(_url(port)), timeout_s=_START_TIMEOUT_S, what="throwaway PostgreSQL"
        )
        try:
            yield _url(port)
        finally:
            server.send_signal(signal.SIGINT)  # fast shutdown: a smart one would wait for every client
            try:
                server.wait(timeout=_START_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=5)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _url(port: int) -> str:
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


def _answers(url: str) -> bool:
    try:
        psycopg.connect(url, connect_timeout=1).close()
    except psycopg.OperationalError:
        return False
    return True
