"""orchestration_trace: the nullable JSON trace of a run

Adds only diagnosis_run.orchestration_trace; rows written before it keep NULL, no backfill.

Revision ID: 0002_orchestration_trace
Revises: 0001_initial
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002_orchestration_trace"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    json_type = sa.JSON(none_as_null=True).with_variant(
        postgresql.JSONB(none_as_null=True, astext_type=sa.Text()), "postgresql"
    )
    with op.batch_alter_table("diagnosis_run") as batch:
        batch.add_column(sa.Column("orchestration_trace", json_type, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("diagnosis_run") as batch:
        batch.drop_column("orchestration_trace")
