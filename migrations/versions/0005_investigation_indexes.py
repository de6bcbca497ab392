"""Indexes for the Investigations list: a principal's sessions, and runs newest first

`GET /api/investigations` reads the newest runs of the sessions one principal owns
(`persistence.investigations.recent_runs`): the sessions by owner, and the runs by creation time,
so a bounded page never sorts every run.

Revision ID: 0005_investigation_indexes
Revises: 0004_case_principal
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005_investigation_indexes"
down_revision: str | None = "0004_case_principal"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SESSIONS_BY_PRINCIPAL = "ix_chat_session_principal"
RUNS_BY_CREATION = "ix_diagnosis_run_created_at"


def upgrade() -> None:
    op.create_index(SESSIONS_BY_PRINCIPAL, "chat_session", ["principal"])
    op.create_index(RUNS_BY_CREATION, "diagnosis_run", ["created_at"])


def downgrade() -> None:
    op.drop_index(RUNS_BY_CREATION, table_name="diagnosis_run")
    op.drop_index(SESSIONS_BY_PRINCIPAL, table_name="chat_session")
