"""Where a benchmark runs: a fresh database (SQLite file or PostgreSQL database) and a served app."""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from api.app import create_app
from api.composition import Services
from api.settings import Settings
from persistence.db import upgrade_head
from tests.support.live_server import free_port, live_server
from tests.support.postgres import fresh_database

# Admission and model concurrency are raised so that concurrency 64 and 200 open streams measure the
# service, not its (correct) 503 answer; the JSON records these settings beside the figures.
BENCH_CHAT = {"max_workers": 512}
BENCH_DATABASE = {"pool_size": 20, "max_overflow": 50}
SUPERBIZ = Path(sys.executable).parent / "superbiz"
# The same limits as BENCH_CHAT / BENCH_DATABASE, for `superbiz serve` processes.
BENCH_ENV = {
    "SUPERBIZ_CHAT__MAX_WORKERS": "512",
    "SUPERBIZ_DATABASE__POOL_SIZE": "20",
    "SUPERBIZ_DATABASE__MAX_OVERFLOW": "50",
    "SUPERBIZ_LOG_LEVEL": "WARNING",
}


@dataclass(frozen=True, slots=True)
class ServedProcess:
    url: str
    pid: int


@asynccontextmanager
async def serve_process(env: Mapping[str, str], log: Path) -> AsyncIterator[ServedProcess]:
    """One `superbiz serve` process on a free port with `env` on top of BENCH_ENV; stopped after."""
    port = free_port()
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        process = await asyncio.create_subprocess_exec(
            str(SUPERBIZ),
            "serve",
            "--port",
            str(port),
            env={**os.environ, **BENCH_ENV, **env},
            stdout=sink,
            stderr=sink,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        await _wait_ready(url, process)
        yield ServedProcess(url, process.pid)
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 15)
            except TimeoutError:
                process.kill()
                await process.wait()


def process_rss(pid: int) -> int:
    """Resident set size of process `pid` in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


async def _wait_ready(url: str, process: asyncio.subprocess.Process) -> None:
    deadline = time.monotonic() + 30
    async with httpx.AsyncClient(timeout=1) as http:
        while time.monotonic() < deadline:
            if process.returncode is not None:
                raise RuntimeError(f"superbiz serve exited with {process.returncode}")
            try:
                if (await http.get(f"{url}/readyz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError("superbiz serve did not become ready")


@dataclass(frozen=True, slots=True)
class Endpoints:
    """Real service URLs the bench may use (PostgreSQL server URL without a database, Redis)."""

    pg_url: str
    redis_url: str


@contextmanager
def sqlite_database() -> Iterator[str]:
    """A SQLite file in a fresh temporary directory (the service migrates it at start-up)."""
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as folder:
        yield f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"


@contextmanager
def postgres_database(server_url: str) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database, dropped afterwards."""
    with fresh_database(server_url, "superbiz_bench") as url:
        upgrade_head(url)
        yield url


@contextmanager
def database(kind: str, endpoints: Endpoints) -> Iterator[str]:
    """`sqlite` or `postgres`."""
    manager = sqlite_database() if kind == "sqlite" else postgres_database(endpoints.pg_url)
    with manager as url:
        yield url


def bench_settings(database_url: str, **overrides: Any) -> Settings:
    """Settings of a benchmark app: demo world, rule-based analyst unless `model=` is given."""
    chat = {**BENCH_CHAT, **overrides.pop("chat", {})}
    return Settings(
        database_url=database_url,
        chat=chat,
        database=BENCH_DATABASE,
        log_level="WARNING",
        **overrides,
    )


@asynccontextmanager
async def served(settings: Settings) -> AsyncIterator[tuple[FastAPI, str]]:
    """The real app on an in-loop uvicorn server; yields the app and its base URL.

    A served process freezes its start-up heap once (`api.app`); the bench starts many apps in one
    process, so each one's start-up heap is frozen here too, and released when it stops.
    """
    app = create_app(settings)
    async with live_server(app) as url:
        gc.collect()
        gc.freeze()
        try:
            yield app, url
        finally:
            gc.unfreeze()


def services(app: FastAPI) -> Services:
    found: Services = app.state.services
    return found
