"""Schema migrations on SQLite and PostgreSQL: up, drift, down and up, and upgrading old data."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from persistence.db import (
    check_drift,
    current_revision,
    downgrade,
    head_revision,
    sync_url,
    upgrade,
    upgrade_head,
)
from tests.conftest import require_service_url
from tests.support.postgres import fresh_database

APP_TABLES = {"chat_session", "diagnosis_run", "agent_step", "tool_invocation", "case_library"}
FIRST = "0001_initial"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a fresh, empty database (PostgreSQL: created for this test, dropped after)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'not-yet' / 'app.db'}"
        return
    with fresh_database(require_service_url("SUPERBIZ_TEST_PG_URL"), "superbiz_migrations") as url:
        yield url


def _engine(url: str) -> sa.Engine:
    return sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)


def _columns(url: str, table: str) -> set[str]:
    engine = _engine(url)
    try:
        return {column["name"] for column in sa.inspect(engine).get_columns(table)}
    finally:
        engine.dispose()


def _index_names(url: str, table: str) -> set[str]:
    engine = _engine(url)
    try:
        return {str(index["name"]) for index in sa.inspect(engine).get_indexes(table)}
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = _engine(url)
    try:
        return set(sa.inspect(engine).get_table_names()) & APP_TABLES
    finally:
        engine.dispose()


def test_upgrade_head_on_an_empty_database_creates_every_table(empty_db_url: str) -> None:
    assert current_revision(empty_db_url) is None
    upgrade_head(empty_db_url)
    assert current_revision(empty_db_url) == head_revision() == "0005_investigation_indexes"
    assert _tables(empty_db_url) == APP_TABLES
    assert "orchestration_trace" in _columns(empty_db_url, "diagnosis_run")


def test_migrated_schema_matches_the_tables_in_code(empty_db_url: str) -> None:
    upgrade_head(empty_db_url)
    assert check_drift(empty_db_url) == []


def test_drift_is_reported_for_a_database_behind_head(empty_db_url: str) -> None:
    upgrade(empty_db_url, FIRST)
    drift = check_drift(empty_db_url)
    assert any("orchestration_trace" in problem for problem in drift)


def test_downgrade_to_base_then_upgrade_head(empty_db_url: str) -> None:
    upgrade_head(empty_db_url)
    downgrade(empty_db_url, "base")
    assert _tables(empty_db_url) == set()
    assert current_revision(empty_db_url) is None
    upgrade_head(empty_db_url)
    assert _tables(empty_db_url) == APP_TABLES
    assert check_drift(empty_db_url) == []


def test_revision_one_has_every_table_but_no_orchestration_trace(empty_db_url: str) -> None:
    upgrade(empty_db_url, FIRST)
    assert _tables(empty_db_url) == APP_TABLES
    assert "orchestration_trace" not in _columns(empty_db_url, "diagnosis_run")


def test_run_id_indexes_duplicated_by_the_unique_run_seq_index_are_dropped_and_restored(
    empty_db_url: str,
) -> None:
    upgrade(empty_db_url, "0002_orchestration_trace")
    for table in ("agent_step", "tool_invocation"):
        assert f"ix_{table}_run_id" in _index_names(empty_db_url, table)
    upgrade_head(empty_db_url)
    for table in ("agent_step", "tool_invocation"):
        assert f"ix_{table}_run_id" not in _index_names(empty_db_url, table)
    downgrade(empty_db_url, "0002_orchestration_trace")
    for table in ("agent_step", "tool_invocation"):
        assert f"ix_{table}_run_id" in _index_names(empty_db_url, table)


def _insert_revision_one_rows(url: str) -> None:
    now = datetime.now(UTC)
    engine = _engine(url)
    meta = sa.MetaData()
    meta.reflect(engine, only=["chat_session", "diagnosis_run", "agent_step"])
    session, run, step = (meta.tables[n] for n in ("chat_session", "diagnosis_run", "agent_step"))
    with engine.begin() as connection:
        connection.execute(
            session.insert().values(
                session_id="s-old",
                status="ACTIVE",
                message_pair_count=1,
                created_at=now,
                last_active_at=now,
            )
        )
        connection.execute(
            run.insert().values(
                run_id="run-old",
                session_id="s-old",
                agent_flow="CHAT",
                query="old question",
                status="SUCCESS",
                outcome="SUCCESS",
                answer='{"text": "old answer"}',
                step_count=1,
                tool_call_count=0,
                self_evaluation={"degraded": False},
                heartbeat_at=now,
                created_at=now,
                updated_at=now,
                finished_at=now,
            )
        )
        connection.execute(
            step.insert().values(
                run_id="run-old",
                session_id="s-old",
                seq=1,
                node="router",
                status="ok",
                started_at=now,
                duration_ms=1.5,
                summary="routed",
            )
        )
    engine.dispose()


def _stored_run(url: str) -> tuple[object, ...]:
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            row = connection.execute(
                sa.text(
                    "SELECT r.query, r.answer, r.step_count, s.node,"
                    " (SELECT count(*) FROM diagnosis_run WHERE orchestration_trace IS NULL)"
                    " FROM diagnosis_run r JOIN agent_step s ON s.run_id = r.run_id"
                    " WHERE r.run_id = 'run-old'"
                )
            ).one()
            return tuple(row)
    finally:
        engine.dispose()


def test_revision_one_rows_survive_upgrade_with_null_trace(empty_db_url: str) -> None:
    upgrade(empty_db_url, FIRST)
    _insert_revision_one_rows(empty_db_url)
    upgrade_head(empty_db_url)
    assert _stored_run(empty_db_url) == ("old question", '{"text": "old answer"}', 1, "router", 1)


def test_downgrading_the_trace_column_keeps_rows_and_children(empty_db_url: str) -> None:
    upgrade(empty_db_url, FIRST)
    _insert_revision_one_rows(empty_db_url)
    upgrade_head(empty_db_url)
    downgrade(empty_db_url, FIRST)  # SQLite rebuilds diagnosis_run: agent_step rows must stay
    assert "orchestration_trace" not in _columns(empty_db_url, "diagnosis_run")
    engine = _engine(empty_db_url)
    with engine.connect() as connection:
        steps = connection.execute(sa.text("SELECT count(*) FROM agent_step")).scalar_one()
        runs = connection.execute(sa.text("SELECT count(*) FROM diagnosis_run")).scalar_one()
    engine.dispose()
    assert (runs, steps) == (1, 1)


@pytest.mark.postgres
def test_workers_migrating_postgres_at_once_both_succeed() -> None:
    with fresh_database(require_service_url("SUPERBIZ_TEST_PG_URL"), "superbiz_migrations") as url:
        errors: list[BaseException] = []

        def migrate() -> None:
            try:
                upgrade_head(url)
            except BaseException as error:  # collected and asserted below
                errors.append(error)

        workers = [threading.Thread(target=migrate) for _ in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=60)
        assert errors == []
        assert current_revision(url) == head_revision()
        assert check_drift(url) == []


def _insert_revision_three_cases(url: str) -> None:
    """Cases of alice's run, of a run without a principal, and of a run that is gone."""
    now = datetime.now(UTC)
    engine = _engine(url)
    meta = sa.MetaData()
    meta.reflect(engine, only=["chat_session", "diagnosis_run", "case_library"])
    session, run, case = (meta.tables[n] for n in ("chat_session", "diagnosis_run", "case_library"))
    times = {"created_at": now, "updated_at": now}
    with engine.begin() as connection:
        for sid, principal in (("s-alice", "alice"), ("s-anon", None)):
            connection.execute(
                session.insert().values(
                    session_id=sid,
                    principal=principal,
                    status="ACTIVE",
                    message_pair_count=1,
                    created_at=now,
                    last_active_at=now,
                )
            )
            connection.execute(
                run.insert().values(
                    run_id=f"run-{sid}",
                    session_id=sid,
                    agent_flow="CHAT",
                    query="q",
                    status="SUCCESS",
                    step_count=0,
                    tool_call_count=0,
                    heartbeat_at=now,
                    **times,
                )
            )
        for diagnosis_id in ("run-s-alice", "run-s-anon", "run-gone"):
            connection.execute(
                case.insert().values(
                    case_id=f"case-{diagnosis_id}",
                    query="q",
                    answer="{}",
                    diagnosis_id=diagnosis_id,
                    use_count=1,
                    **times,
                )
            )
    engine.dispose()


def _case_owners(url: str) -> dict[str, str | None]:
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT case_id, principal FROM case_library")).all()
            return {str(case_id): principal for case_id, principal in rows}
    finally:
        engine.dispose()


def test_existing_cases_take_the_principal_of_their_runs_session_and_downgrade_keeps_them(
    empty_db_url: str,
) -> None:
    upgrade(empty_db_url, "0003_run_id_indexes")
    _insert_revision_three_cases(empty_db_url)
    upgrade_head(empty_db_url)
    assert _case_owners(empty_db_url) == {
        "case-run-s-alice": "alice",
        "case-run-s-anon": None,
        "case-run-gone": None,  # no run to own it: only callers without a principal see it
    }
    assert "ix_case_library_principal_updated" in _index_names(empty_db_url, "case_library")
    downgrade(empty_db_url, "0003_run_id_indexes")
    assert "principal" not in _columns(empty_db_url, "case_library")
    assert "ix_case_library_principal_updated" not in _index_names(empty_db_url, "case_library")
    engine = _engine(empty_db_url)
    with engine.connect() as connection:
        kept = connection.execute(sa.text("SELECT count(*) FROM case_library")).scalar_one()
    engine.dispose()
    assert kept == 3


def test_investigation_indexes_come_and_go_with_their_revision(empty_db_url: str) -> None:
    upgrade_head(empty_db_url)
    assert "ix_chat_session_principal" in _index_names(empty_db_url, "chat_session")
    assert "ix_diagnosis_run_created_at" in _index_names(empty_db_url, "diagnosis_run")
    downgrade(empty_db_url, "0004_case_principal")
    assert "ix_chat_session_principal" not in _index_names(empty_db_url, "chat_session")
    assert "ix_diagnosis_run_created_at" not in _index_names(empty_db_url, "diagnosis_run")
    upgrade_head(empty_db_url)
    assert check_drift(empty_db_url) == []
