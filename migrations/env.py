"""Alembic environment: the table metadata and the database URL, nothing else.

Synchronous on purpose (the app calls `persistence.db.upgrade_head` through `asyncio.to_thread`).
`persistence.db` injects a connection holding the migration lock; a bare URL works too.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from persistence import tables

config = context.config
target_metadata = tables.metadata


def _run(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite has no real ALTER TABLE: batch mode copies the table instead
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the revisions on the injected connection, or on one made from `sqlalchemy.url`."""
    injected = config.attributes.get("connection")
    if isinstance(injected, sa.Connection):
        _run(injected)
        return
    url = config.get_main_option("sqlalchemy.url") or ""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool, hide_parameters=True)
    with engine.connect() as connection:
        _run(connection)
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported")
run_migrations_online()
