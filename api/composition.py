"""The composition root: builds every long-lived part once at start-up and closes it on the way out.

Only this module constructs engines, clients, stores, the graph and executors; everything else receives
them. `Services` is what the lifespan keeps on `app.state` and what `deps.py` hands to routes.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from api.settings import Settings
from persistence.db import make_engine, make_sessionmaker, upgrade_head
from persistence.runs import RunStore
from persistence.sessions import InProcessContextStore, RedisContextStore, SessionContextStore
from tools.limits import ToolLimits

log = logging.getLogger("superbiz.composition")


@dataclass(slots=True)
class Services:
    """Everything a request may use; one instance per process."""

    settings: Settings
    worker_id: str
    engine: AsyncEngine
    runs: RunStore
    contexts: SessionContextStore
    background: set[asyncio.Task[None]] = field(default_factory=set)

    async def database_ready(self) -> tuple[bool, str]:
        try:
            async with asyncio.timeout(self.settings.database.pool_timeout_s):
                async with self.engine.connect() as conn:
                    await conn.execute(sa.text("SELECT 1"))
        except Exception:  # readiness reports, never raises
            log.warning("database readiness check failed", exc_info=True)
            return False, "unreachable"
        return True, "ok"

    async def context_store_ready(self) -> tuple[bool, str]:
        ok = await self.contexts.ping()
        return ok, "ok" if ok else "unreachable"


def tool_limits(settings: Settings) -> ToolLimits:
    """The tools package's view of the backend bounds (it never imports settings)."""
    return ToolLimits.from_mapping(settings.backends.model_dump(exclude={"sql_datasources"}))


def worker_identity() -> str:
    """Unique per process: the orphan sweep must never finish another live worker's runs."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def build_context_store(settings: Settings) -> SessionContextStore:
    bounds = settings.redis
    if settings.redis_url is not None:
        return RedisContextStore.from_url(
            settings.redis_url.get_secret_value(),
            max_turns=bounds.max_turns,
            max_turn_bytes=bounds.max_turn_bytes,
            max_history_bytes=bounds.max_history_bytes,
            ttl_s=bounds.context_ttl_s,
            socket_timeout_s=bounds.socket_timeout_s,
        )
    return InProcessContextStore(
        max_turns=bounds.max_turns,
        max_turn_bytes=bounds.max_turn_bytes,
        max_history_bytes=bounds.max_history_bytes,
        ttl_s=bounds.context_ttl_s,
        max_sessions=bounds.max_sessions,
    )


async def build_services(settings: Settings) -> Services:
    """Build the process's parts; migrate the embedded SQLite database (PostgreSQL: `superbiz migrate`)."""
    url = settings.database_url.get_secret_value()
    if settings.embedded_database:
        await asyncio.to_thread(upgrade_head, url)
    engine = make_engine(
        url,
        pool_size=settings.database.pool_size,
        max_overflow=settings.database.max_overflow,
        pool_timeout_s=settings.database.pool_timeout_s,
    )
    worker_id = worker_identity()
    runs = RunStore(make_sessionmaker(engine), worker_id=worker_id)
    services = Services(
        settings=settings,
        worker_id=worker_id,
        engine=engine,
        runs=runs,
        contexts=build_context_store(settings),
    )
    return services


async def close_services(services: Services) -> None:
    for task in list(services.background):
        task.cancel()
    await services.contexts.aclose()
    await services.engine.dispose()
