"""Looking inside a running test app: its services and its row counts."""

from __future__ import annotations

import sqlalchemy as sa
from fastapi import FastAPI

from api.composition import Services


def services_of(app: FastAPI) -> Services:
    services: Services = app.state.services
    return services


async def count_rows(app: FastAPI, table: str) -> int:
    """Rows in one of the service's own tables (a fixed table name from the test, never input)."""
    assert table in {"chat_session", "diagnosis_run", "agent_step", "tool_invocation", "case_library"}
    async with services_of(app).engine.connect() as conn:
        return int((await conn.execute(sa.text(f"SELECT count(*) FROM {table}"))).scalar_one())
