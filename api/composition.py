"""The composition root: builds every long-lived part once at start-up and closes it on the way out.

Only this module constructs engines, clients, stores, the graph and executors; everything else
receives them. `Services` is what the lifespan keeps on `app.state` and `deps.py` hands to routes.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from api.admission import Admission
from api.aiops_flow import AiOpsFlow
from api.auth import TokenTable
from api.backends import PrivilegedDatasourceError, audit_sql_roles, build_sources
from api.chat_flow import ChatFlow
from api.diagnoser import Diagnoser, build_diagnoser
from api.metrics import ServiceMetrics
from api.run_lifecycle import RunLifecycle
from api.settings import Settings
from api.shutdown import OpenStreams
from persistence.db import make_engine, make_sessionmaker, upgrade_head
from persistence.runs import RunStore
from persistence.sessions import (
    ContextBounds,
    InProcessContextStore,
    RedisContextStore,
    SessionContextStore,
)
from tools.base import Sources
from tools.evidence_store import EvidenceCache
from tools.limits import ToolLimits
from tools.sql.audited import AuditedDatasources
from tools.toolbox import Toolbox

log = logging.getLogger("superbiz.composition")
# /readyz audits a datasource's role again once its last audit is this old (seconds).
SQL_ROLE_AUDIT_MAX_AGE_S = 60.0


@dataclass(slots=True)
class Services:
    """Everything a request may use; one instance per process."""

    settings: Settings
    worker_id: str
    engine: AsyncEngine
    http: httpx.AsyncClient
    runs: RunStore
    contexts: SessionContextStore
    tokens: TokenTable
    admission: Admission
    diagnosis: Diagnoser
    chat: ChatFlow
    aiops: AiOpsFlow
    metrics: ServiceMetrics
    streams: OpenStreams
    background: set[asyncio.Task[None]] = field(default_factory=set)
    sql_roles: AuditedDatasources | None = None

    async def database_ready(self) -> tuple[bool, str]:
        try:
            async with asyncio.timeout(self.settings.database.pool_timeout_s):
                async with self.engine.connect() as conn:
                    await conn.execute(sa.text("SELECT 1"))
        except Exception:  # readiness reports, never raises
            log.warning("database readiness check failed", exc_info=True)
            return False, "unreachable"
        return True, "ok"

    async def sql_roles_ready(self) -> tuple[bool, dict[str, dict[str, str]]]:
        """False while a datasource's role is refused (it is disabled); unreachable only degrades."""
        if self.sql_roles is None:
            return True, {}
        try:
            async with asyncio.timeout(self.settings.backends.tool_timeout_s):
                roles = await self.sql_roles.audit(max_age_s=SQL_ROLE_AUDIT_MAX_AGE_S)
        except TimeoutError:  # report the last audit rather than hold the probe
            roles = self.sql_roles.roles()
        checks = {name: {"status": role.state, "detail": role.detail} for name, role in roles.items()}
        return all(role.state != "refused" for role in roles.values()), checks

    async def context_store_ready(self) -> tuple[bool, str]:
        ok = await self.contexts.ping()
        return ok, "ok" if ok else "unreachable"

    async def evidence_ready(self) -> dict[str, dict[str, Any]]:
        """Each configured evidence backend: ok or degraded (never fails readiness), probe latency."""
        probes = await self.diagnosis.toolbox.probe()
        return {
            name: {
                "status": "ok" if health.ok else "degraded",
                "detail": "ok" if health.ok else health.reason,
                "backend": backend,
                "latency_ms": round(latency_ms, 1),
            }
            for name, (health, latency_ms, backend) in probes.items()
        }


def tool_limits(settings: Settings) -> ToolLimits:
    """The tools package's view of the backend bounds (it never imports settings)."""
    return ToolLimits.from_mapping(settings.backends.model_dump(exclude={"sql_datasources"}))


def build_toolbox(sources: Sources, limits: ToolLimits) -> Toolbox:
    """The one toolbox factory (server, evaluation, `superbiz evidence`); its cache sized by the limits."""
    return Toolbox(sources, limits, EvidenceCache(ttl_s=limits.cache_ttl_s, capacity=limits.cache_capacity))


def worker_identity() -> str:
    """Unique per process: the orphan sweep must never finish another live worker's runs."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def build_context_store(settings: Settings) -> SessionContextStore:
    redis = settings.redis
    bounds = ContextBounds(
        ttl_s=redis.context_ttl_s,
        max_turns=redis.max_turns,
        max_turn_bytes=redis.max_turn_bytes,
        max_history_bytes=redis.max_history_bytes,
    )
    if settings.redis_url is not None:
        return RedisContextStore.from_url(
            settings.redis_url.get_secret_value(), bounds=bounds, socket_timeout_s=redis.socket_timeout_s
        )
    return InProcessContextStore(bounds=bounds, max_sessions=redis.max_sessions)


async def build_services(settings: Settings) -> Services:
    """Build the process's parts; migrate the embedded SQLite database (PostgreSQL: `superbiz migrate`)."""
    tokens = TokenTable.parse(settings.api_tokens.get_secret_value() if settings.api_tokens else None)
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
    http = httpx.AsyncClient(timeout=settings.backends.tool_timeout_s)
    sources = build_sources(settings, http, cases=runs)
    try:
        await audit_sql_roles(sources)
    except PrivilegedDatasourceError:
        await http.aclose()
        await engine.dispose()
        raise
    toolbox = build_toolbox(sources, tool_limits(settings))
    diagnosis = build_diagnoser(settings, toolbox)
    contexts = build_context_store(settings)
    chat_limits = settings.chat
    metrics = ServiceMetrics()
    lifecycle = RunLifecycle(
        store=runs,
        metrics=metrics,
        max_status_events=chat_limits.max_status_events,
        write_timeout_s=max(30.0, settings.database.pool_timeout_s),
        # Terminal writes take at most half the pool; a backlog of them turns admission away.
        max_writes=max(1, settings.database.pool_size // 2),
        max_pending_writes=4 * chat_limits.max_workers,
    )
    chat = ChatFlow(
        lifecycle=lifecycle,
        contexts=contexts,
        diagnoser=diagnosis,
        max_answer_bytes=chat_limits.max_answer_bytes,
    )
    aiops = AiOpsFlow(lifecycle=lifecycle, diagnoser=diagnosis, max_groups=chat_limits.max_aiops_groups)
    # The embedded SQLite database belongs to this one process: every RUNNING run in it was left by
    # a process that died. A shared database is swept by age, now and periodically.
    await sweep_orphans(runs, 0.0 if settings.embedded_database else orphan_age_s(settings), [])
    services = Services(
        settings=settings,
        worker_id=worker_id,
        engine=engine,
        http=http,
        runs=runs,
        contexts=contexts,
        tokens=tokens,
        admission=Admission(capacity=chat_limits.max_workers),
        diagnosis=diagnosis,
        chat=chat,
        aiops=aiops,
        metrics=metrics,
        streams=OpenStreams(grace_s=chat_limits.shutdown_grace_s),
        sql_roles=sources.sql if isinstance(sources.sql, AuditedDatasources) else None,
    )
    sweeper = asyncio.create_task(_keep_runs_alive(runs, lifecycle, settings))
    services.background.add(sweeper)
    return services


def orphan_age_s(settings: Settings) -> float:
    """How long a RUNNING run may go without a heartbeat before no live worker can own it."""
    return max(settings.database.orphan_after_s, 3 * settings.database.sweep_interval_s)


async def sweep_orphans(runs: RunStore, stale_after_s: float, live_runs: list[str]) -> None:
    """Finish runs left RUNNING by a dead worker (or by a task of ours that is gone)."""
    try:
        swept = await runs.sweep_interrupted(stale_after_s=stale_after_s, live_runs=live_runs)
    except Exception:
        log.warning("could not sweep interrupted runs (database unavailable?)", exc_info=True)
        return
    if swept:
        log.warning("finished %d interrupted run(s) left RUNNING without a live owner", len(swept))


async def _keep_runs_alive(runs: RunStore, lifecycle: RunLifecycle, settings: Settings) -> None:
    """Every interval: a heartbeat for this worker's live runs, then the orphan sweep."""
    while True:
        await asyncio.sleep(settings.database.sweep_interval_s)
        try:
            await runs.heartbeat(run_ids=lifecycle.live_run_ids())
        except Exception:
            log.warning("could not record run heartbeats", exc_info=True)
        await sweep_orphans(runs, orphan_age_s(settings), lifecycle.live_run_ids())


async def close_services(services: Services) -> None:
    """Cancel runs still in flight (they finish CANCELLED), then close clients and pools."""
    for task in services.background:
        task.cancel()
    await services.chat.lifecycle.shutdown(services.settings.chat.cancel_grace_s)
    await services.contexts.aclose()
    await services.http.aclose()
    await services.engine.dispose()
