"""Rows the API never writes on its own, put straight into the service's tables for a test."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from persistence.tables import SESSIONS, SessionStatus, utcnow


async def add_session_without_runs(
    conn: AsyncConnection, session_id: str, principal: str | None = None
) -> None:
    """A session row with no run (`RunStore.open_run` always opens one with it); the caller commits."""
    now = utcnow()
    await conn.execute(
        sa.insert(SESSIONS).values(
            session_id=session_id,
            principal=principal,
            status=SessionStatus.ACTIVE.value,
            message_pair_count=0,
            created_at=now,
            last_active_at=now,
        )
    )
