"""A throwaway MariaDB server on a free loopback port, for modes the shared server must not be put in
(e.g. `--sql-mode=ANSI_QUOTES,NO_BACKSLASH_ESCAPES`); its data directory is removed afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pymysql
import pytest

from tests.conftest import IN_CI
from tests.support.throwaway_port import start_on_free_port

_START_TIMEOUT_S = 30.0


def _require_binaries() -> None:
    missing = [name for name in ("mariadbd", "mariadb-install-db") if shutil.which(name) is None]
    if missing or os.geteuid() != 0:
        message = f"a throwaway MariaDB needs root and {', '.join(missing) or 'mariadbd'}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def throwaway_mariadb(*server_args: str) -> Iterator[str]:
    """Yield `mysql://root@127.0.0.1:PORT/` of a fresh server started with `server_args` on a free port
    (`urlsplit(url).port`)."""
    _require_binaries()
    root = Path(tempfile.mkdtemp(prefix="sb_mariadb_"))
    root.chmod(0o755)
    shutil.chown(root, "mysql")
    try:
        # --no-defaults: the system config forces a log file and user the throwaway must not share.
        subprocess.run(
            ["mariadb-install-db", "--no-defaults", f"--datadir={root / 'data'}", "--user=mysql",
             "--auth-root-authentication-method=normal"],
            check=True, capture_output=True,
        )  # fmt: skip

        def launch(port: int) -> subprocess.Popen[bytes]:
            # mariadbd drops to the mysql user itself (--user); its start-up warnings go to the log file.
            return subprocess.Popen(
                ["mariadbd", "--no-defaults", "--user=mysql", f"--datadir={root / 'data'}",
                 f"--port={port}", f"--socket={root / 'sock'}", "--bind-address=127.0.0.1",
                 f"--log-error={root / 'err.log'}", *server_args],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip

        server, port = start_on_free_port(
            launch, _answers, timeout_s=_START_TIMEOUT_S, what="throwaway MariaDB"
        )
        try:
            yield f"mysql://root@127.0.0.1:{port}/"
        finally:
            server.terminate()
            server.wait(timeout=_START_TIMEOUT_S)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _answers(port: int) -> bool:
    try:
        pymysql.connect(host="127.0.0.1", port=port, user="root", connect_timeout=1).close()
    except pymysql.err.OperationalError:
        return False
    return True
