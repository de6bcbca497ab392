"""The statements every chat run executes (open, trace rows, finish), built once.

A statement built per call, with its values as literals, is walked for its cache key on every
execution (every value, every correlated subquery); one built once with bound parameters has its key
memoized, and each execution only binds a dict. The values go in as execution parameters: an
UPDATE's SET clause takes the parameters named after its table's columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from persistence.queries import count_of, is_running
from persistence.tables import RUNS, SESSIONS, STEPS, TOOLS

# Parameter names that are no column's, so they never become a SET value.
RUN_ID = "b_run_id"
SESSION_ID = "b_session_id"


def _last_seq(table: sa.Table) -> sa.ScalarSelect[int]:
    return (
        sa.select(sa.func.coalesce(sa.func.max(table.c.seq), 0))
        .where(table.c.run_id == sa.bindparam(RUN_ID))
        .scalar_subquery()
    )


# A RUNNING run's session and both trace tables' last numbers, in one round trip ({RUN_ID}).
RUNNING_WITH_LAST_SEQS = sa.select(RUNS.c.session_id, _last_seq(STEPS), _last_seq(TOOLS)).where(
    RUNS.c.run_id == sa.bindparam(RUN_ID), is_running()
)

INSERT_RUN = sa.insert(RUNS)
INSERT_ROWS: Mapping[str, sa.Insert] = {STEPS.name: sa.insert(STEPS), TOOLS.name: sa.insert(TOOLS)}

# The session's owner ({SESSION_ID}).
PRINCIPAL_OF = sa.select(SESSIONS.c.principal).where(SESSIONS.c.session_id == sa.bindparam(SESSION_ID))

# Finish a RUNNING run ({RUN_ID} and its outcome's columns); counts from the run's own rows.
FINISH_RUN = (
    sa.update(RUNS)
    .where(RUNS.c.run_id == sa.bindparam(RUN_ID), is_running())
    .values(step_count=count_of(STEPS), tool_call_count=count_of(TOOLS))
)

# Count one question/answer pair in the session of run {RUN_ID} (and `last_active_at`).
MESSAGE_PAIR_OF_RUN = (
    sa.update(SESSIONS)
    .where(
        SESSIONS.c.session_id
        == sa.select(RUNS.c.session_id).where(RUNS.c.run_id == sa.bindparam(RUN_ID)).scalar_subquery()
    )
    .values(message_pair_count=SESSIONS.c.message_pair_count + 1)
)

# A session row unless one with its id exists (many requests may race on one id), per dialect.
_INSERT_SESSION: Mapping[str, sa.Insert] = {
    "postgresql": postgresql.insert(SESSIONS).on_conflict_do_nothing(index_elements=["session_id"]),
    "sqlite": sqlite.insert(SESSIONS).on_conflict_do_nothing(index_elements=["session_id"]),
}


def insert_session_if_new(conn: Connection, values: Mapping[str, Any]) -> None:
    conn.execute(_INSERT_SESSION[conn.dialect.name], dict(values))
