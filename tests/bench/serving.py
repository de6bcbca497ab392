"""Where a benchmark runs: a fresh database (SQLite file or PostgreSQL database) and a served app."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from fastapi import FastAPI
from sqlalchemy.engine import make_url

from api.app import create_app
from api.composition import Services
from api.settings import Settings
from persistence.db import upgrade_head
from tests.support.live_server import live_server

# Admission and model concurrency are raised so that concurrency 64 and 200 open streams measure the
# service, not its (correct) 503 answer; the JSON records these settings beside the figures.
BENCH_CHAT = {"max_workers": 512}
BENCH_DATABASE = {"pool_size": 20, "max_overflow": 50}


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
    name = f"superbiz_bench_{uuid.uuid4().hex[:10]}"
    admin = _libpq(server_url, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade_head(url)
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
    """The real app on an in-loop uvicorn server; yields the app and its base URL."""
    app = create_app(settings)
    async with live_server(app) as url:
        yield app, url


def services(app: FastAPI) -> Services:
    found: Services = app.state.services
    return found


def _libpq(url: str, database: str) -> str:
    """A libpq connection string for `database` on the server of a SQLAlchemy URL."""
    parsed = make_url(url).set(drivername="postgresql", database=database)
    return parsed.render_as_string(hide_password=False)
