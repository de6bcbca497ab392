"""Liveness and readiness: `/healthz` says the process answers, `/readyz` checks its dependencies."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from api.deps import MetricsDep, ReadinessDep, SettingsDep
from api.schemas import HealthBody, HealthEnvelope, ReadinessBody, ReadinessEnvelope

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> HealthEnvelope:
    return HealthEnvelope(data=HealthBody(status="ok"))


@router.get("/readyz", response_model=None, responses={200: {"model": ReadinessEnvelope}})
async def readyz(readiness: ReadinessDep, settings: SettingsDep) -> JSONResponse:
    """503 when the database is unreachable or a SQL datasource's role is refused (that datasource is
    disabled); a Redis outage only degrades chat history, an unreachable datasource or evidence
    backend (Prometheus, Alertmanager, Loki, knowledge) only its evidence: `degraded`, still 200."""
    db_ok, db_detail = await readiness.database_ready()
    ctx_ok, ctx_detail = await readiness.context_store_ready()
    sql_ok, sql_roles = await readiness.sql_roles_ready()
    evidence = await readiness.evidence_ready()
    checks: dict[str, Any] = {
        "database": {"status": "ok" if db_ok else "down", "detail": db_detail},
        "session_context": {
            "status": "ok" if ctx_ok else "degraded",
            "detail": ctx_detail,
            "backend": "redis" if settings.redis_url else "in-process",
        },
    }
    if sql_roles:
        checks["sql_datasources"] = sql_roles
    checks["evidence"] = evidence
    ready = db_ok and sql_ok
    body = ReadinessEnvelope(
        code="OK" if ready else "NOT_READY",
        message="ready" if ready else "a required dependency is unavailable",
        data=ReadinessBody(ready=ready, checks=checks),
    )
    return JSONResponse(body.model_dump(mode="json", by_alias=True), status_code=200 if ready else 503)


@router.get("/metrics", response_class=Response)
async def metrics(service_metrics: MetricsDep) -> Response:
    """The service's own metrics in the Prometheus text format."""
    return Response(service_metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")
