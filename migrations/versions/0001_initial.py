"""initial: sessions, runs, steps, tool invocations and the case library

Everything except diagnosis_run.orchestration_trace, which 0002 adds.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[Any]:
    # frozen copy of persistence.tables.JSONType: a revision never follows later model edits
    return sa.JSON(none_as_null=True).with_variant(
        postgresql.JSONB(none_as_null=True, astext_type=sa.Text()), "postgresql"
    )


def _when(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "chat_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("principal", sa.String(length=128), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("message_pair_count", sa.Integer(), nullable=False),
        _when("created_at"),
        _when("last_active_at"),
        _when("expires_at", nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("session_id", name="uq_chat_session_session_id"),
    )
    op.create_table(
        "diagnosis_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("agent_flow", sa.String(length=16), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("route", sa.String(length=32), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("answer_preview", sa.String(length=500), nullable=True),
        sa.Column("content_type", sa.String(length=64), nullable=True),
        sa.Column("step_count", sa.Integer(), nullable=False),
        sa.Column("tool_call_count", sa.Integer(), nullable=False),
        sa.Column("self_evaluation", _json(), nullable=True),
        sa.Column("feedback", _json(), nullable=True),
        sa.Column("failure_code", sa.String(length=64), nullable=True),
        sa.Column("cancel_reason", sa.String(length=64), nullable=True),
        sa.Column("owner", sa.String(length=128), nullable=True),
        _when("heartbeat_at"),
        _when("created_at"),
        _when("updated_at"),
        _when("finished_at", nullable=True),
        sa.ForeignKeyConstraint(["session_id"], ["chat_session.session_id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id", name="uq_diagnosis_run_run_id"),
    )
    op.create_index("ix_diagnosis_run_session_run", "diagnosis_run", ["session_id", "run_id"])
    op.create_index("ix_diagnosis_run_status_heartbeat", "diagnosis_run", ["status", "heartbeat_at"])
    for table in ("agent_step", "tool_invocation"):
        op.create_table(table, *_run_child_columns(table))
        op.create_index(f"ix_{table}_run_id", table, ["run_id"])
    op.create_table(
        "case_library",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("case_id", sa.String(length=64), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("root_cause_service", sa.String(length=128), nullable=True),
        sa.Column("category", sa.String(length=64), nullable=True),
        sa.Column("diagnosis_id", sa.String(length=64), nullable=False),
        _when("created_at"),
        _when("updated_at"),
        sa.Column("use_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("case_id", name="uq_case_library_case_id"),
        sa.UniqueConstraint("diagnosis_id", name="uq_case_library_diagnosis_id"),
    )


def _run_child_columns(table: str) -> list[sa.schema.SchemaItem]:
    """Columns of agent_step / tool_invocation: shared run keys, then each table's own."""
    shared: list[sa.schema.SchemaItem] = [
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
    ]
    if table == "agent_step":
        own: list[sa.schema.SchemaItem] = [
            sa.Column("node", sa.String(length=64), nullable=False),
            sa.Column("status", sa.String(length=32), nullable=False),
            _when("started_at"),
            sa.Column("duration_ms", sa.Float(), nullable=False),
            sa.Column("summary", sa.String(length=1000), nullable=False),
        ]
    else:
        own = [
            sa.Column("tool", sa.String(length=64), nullable=False),
            sa.Column("evidence_id", sa.String(length=64), nullable=True),
            sa.Column("status", sa.String(length=32), nullable=False),
            sa.Column("args_summary", sa.String(length=1000), nullable=False),
            sa.Column("result_summary", sa.String(length=1000), nullable=False),
            sa.Column("bytes", sa.Integer(), nullable=False),
            sa.Column("duration_ms", sa.Float(), nullable=False),
            _when("created_at"),
        ]
    keys: list[sa.schema.SchemaItem] = [
        sa.ForeignKeyConstraint(["run_id"], ["diagnosis_run.run_id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id", "seq", name=f"uq_{table}_run_seq"),
    ]
    return shared + own + keys


def downgrade() -> None:
    op.drop_table("case_library")
    for table in ("tool_invocation", "agent_step"):
        op.drop_index(f"ix_{table}_run_id", table_name=table)
        op.drop_table(table)
    op.drop_index("ix_diagnosis_run_status_heartbeat", table_name="diagnosis_run")
    op.drop_index("ix_diagnosis_run_session_run", table_name="diagnosis_run")
    op.drop_table("diagnosis_run")
    op.drop_table("chat_session")
