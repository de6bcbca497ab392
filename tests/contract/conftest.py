"""Fixtures giving each contract suite one store per backend.

Run store: SQLite (a fresh file per test) and PostgreSQL (one fresh database per test session, so
parallel runs never share rows). Session store: in-process and real Redis (a random key prefix).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from persistence.db import make_engine, make_sessionmaker, upgrade_head
from persistence.runs import RunStore
from persistence.sessions import (
    ContextBounds,
    InProcessContextStore,
    RedisContextStore,
    SessionContextStore,
)
from tests.conftest import require_service_url
from tests.support.postgres import fresh_database


@pytest.fixture(scope="session")
def pg_run_database() -> Iterator[str]:
    """A fresh, migrated PostgreSQL database for this test session; dropped at the end."""
    with fresh_database(require_service_url("SUPERBIZ_TEST_PG_URL"), "superbiz_contract") as url:
        upgrade_head(url)
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def run_db(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """Sessions on a migrated database of each backend."""
    if request.param == "postgres":
        url = request.getfixturevalue("pg_run_database")
    else:
        url = f"sqlite+aiosqlite:///{tmp_path / 'var' / 'runs.db'}"
        await asyncio.to_thread(upgrade_head, url)
    engine = make_engine(url, pool_size=5, max_overflow=25)
    try:
        yield make_sessionmaker(engine)
    finally:
        await engine.dispose()


@pytest.fixture
def run_store(run_db: async_sessionmaker[AsyncSession]) -> RunStore:
    """The run store of worker `worker-me`."""
    return RunStore(run_db, worker_id="worker-me")


# --- session-context stores ----------------------------------------------------------------------


@dataclass
class ContextBackend:
    """Builds stores of one backend and moves that backend's time forward."""

    make: Callable[[ContextBounds], SessionContextStore]
    advance: Callable[[float], Awaitable[None]]


@pytest.fixture(params=["in_process", pytest.param("redis", marks=pytest.mark.redis)])
async def context_backend(request: pytest.FixtureRequest) -> AsyncIterator[ContextBackend]:
    """A session-context backend: in-process with a fake clock, or real Redis with real time."""
    if request.param == "in_process":
        now = [1_000.0]

        async def advance_clock(seconds: float) -> None:
            now[0] += seconds

        def make_in_process(bounds: ContextBounds) -> SessionContextStore:
            return InProcessContextStore(bounds=bounds, max_sessions=100, clock=lambda: now[0])

        yield ContextBackend(make=make_in_process, advance=advance_clock)
        return

    url = require_service_url("SUPERBIZ_TEST_REDIS_URL")
    prefix = f"superbiz-test-{uuid.uuid4().hex}:"
    made: list[SessionContextStore] = []

    def make_redis(bounds: ContextBounds) -> SessionContextStore:
        store = RedisContextStore.from_url(url, bounds=bounds, socket_timeout_s=2.0, key_prefix=prefix)
        made.append(store)
        return store

    yield ContextBackend(make=make_redis, advance=asyncio.sleep)
    for store in made:
        await store.aclose()
    cleaner = Redis.from_url(url)
    try:
        keys = [key async for key in cleaner.scan_iter(match=f"{prefix}*")]
        if keys:
            await cleaner.delete(*keys)
    finally:
        await cleaner.aclose()
