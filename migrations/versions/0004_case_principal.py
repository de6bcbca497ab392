"""case_library.principal: a past case belongs to the principal whose run it came from

Adds the nullable column and the (principal, updated_at) index the similar-case lookup reads.
Existing cases take the principal of their run's session; a case whose run is gone keeps NULL,
which only callers without a principal (no authentication configured) ever see.

Revision ID: 0004_case_principal
Revises: 0003_run_id_indexes
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_case_principal"
down_revision: str | None = "0003_run_id_indexes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_case_library_principal_updated"
# A correlated subquery: the same statement on SQLite and PostgreSQL.
BACKFILL = sa.text(
    "UPDATE case_library SET principal = ("
    " SELECT s.principal FROM diagnosis_run r JOIN chat_session s ON s.session_id = r.session_id"
    " WHERE r.run_id = case_library.diagnosis_id)"
)


def upgrade() -> None:
    with op.batch_alter_table("case_library") as batch:
        batch.add_column(sa.Column("principal", sa.String(length=128), nullable=True))
    op.execute(BACKFILL)
    op.create_index(INDEX, "case_library", ["principal", "updated_at"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="case_library")
    with op.batch_alter_table("case_library") as batch:
        batch.drop_column("principal")
