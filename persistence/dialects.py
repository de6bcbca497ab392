"""The few statements whose spelling differs between SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel.ext.asyncio.session import AsyncSession


def insert_for(db: AsyncSession | AsyncConnection) -> Callable[..., Any]:
    """The dialect's INSERT; both offer `on_conflict_do_nothing(index_elements=...)`."""
    dialect = db.dialect if isinstance(db, AsyncConnection) else db.get_bind().dialect
    return postgresql.insert if dialect.name == "postgresql" else sqlite.insert
