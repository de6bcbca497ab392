"""The few statements whose spelling differs between SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session


def insert_for(db: Session | Connection) -> Callable[..., Any]:
    """The dialect's INSERT; both offer `on_conflict_do_nothing(index_elements=...)`."""
    dialect = db.dialect if isinstance(db, Connection) else db.get_bind().dialect
    return postgresql.insert if dialect.name == "postgresql" else sqlite.insert
