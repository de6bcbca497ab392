"""Drop ix_agent_step_run_id and ix_tool_invocation_run_id

Each table's unique (run_id, seq) index already serves every lookup by run_id (and the cascade from
diagnosis_run), so these two only cost an index write for each of a run's ~47 step and tool rows.

Revision ID: 0003_run_id_indexes
Revises: 0002_orchestration_trace
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003_run_id_indexes"
down_revision: str | None = "0002_orchestration_trace"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("agent_step", "tool_invocation")


def upgrade() -> None:
    for table in TABLES:
        op.drop_index(f"ix_{table}_run_id", table_name=table)


def downgrade() -> None:
    for table in TABLES:
        op.create_index(f"ix_{table}_run_id", table, ["run_id"])
