"""A server's lock queue told at an informational level (PostgreSQL's `log_lock_waits`, MySQL's thread
state): its callers' timeouts are explained by it, tagged locks."""

from __future__ import annotations

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import ask, lines, move
from tools.facts import Digest

_WAIT = (
    "LOG:  process 48211 still waiting for AccessExclusiveLock on relation 16402 of database 16384"
    " after 1000.054 ms"
)


def _digest(wait: str, level: str) -> Digest:
    return Digest(
        log_patterns=[
            lines(
                "ledger-api",
                "org.postgresql.util.PSQLException: ERROR: canceling statement due to statement timeout",
                "2026-03-01T10:31:00Z",
            ),
            lines("ledger-pg", wait, "2026-03-01T10:30:00Z", count=12, level=level),
            lines(
                "ledger-pg",
                "LOG:  checkpoint complete: wrote 812 buffers",
                "2026-03-01T06:30:00Z",
                level="info",
            ),
        ],
        anomalies=[
            move(
                "http_request_duration_seconds_p99",
                "ledger-api",
                "2026-03-01T10:31:00Z",
                {"service": "ledger-api"},
            )
        ],
    )


def test_a_databases_lock_waits_logged_at_info_explain_its_callers_timeouts() -> None:
    draft = diagnose_digest(ask("why is ledger-api timing out?", _digest(_WAIT, "info")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("ledger-pg", "slow_query")
    assert "AccessExclusiveLock" in draft.root_cause.statement


def test_a_metadata_lock_wait_in_a_thread_state_is_a_lock_queue_too() -> None:
    wait = "Id 8812 User app State Waiting for table metadata lock Info ALTER TABLE orders ADD COLUMN note"
    draft = diagnose_digest(ask("why is ledger-api timing out?", _digest(wait, "info")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("ledger-pg", "slow_query")


def test_a_servers_routine_info_lines_are_still_no_trouble() -> None:
    """The same server's checkpoint lines at info: the caller's timeouts are all there is."""
    routine = "LOG:  automatic vacuum of table orders: index scans: 1 pages: 0 removed"
    draft = diagnose_digest(ask("why is ledger-api timing out?", _digest(routine, "info")))
    assert draft.root_cause is None or draft.root_cause.service == "ledger-api"


def test_a_caller_whose_timeouts_name_no_database_is_the_one_its_sessions_log_in_as() -> None:
    """The web app's workers time out (no database word); the database's sessions, logged in as the app
    without the estate's prefix, wait for a metadata lock: the database is the root."""
    waiting = (
        "Id: 4409911 | User: shopfront | Host: 10.40.2.15:51822 | db: fenwick | Command: Query | Time: 41"
        " | State: Waiting for table metadata lock | Info: SELECT * FROM catalog_product WHERE id = 7"
    )
    digest = Digest(
        log_patterns=[
            lines("fenwick-shopfront", "[1] [CRITICAL] WORKER TIMEOUT (pid:7038)", "2026-03-01T10:31:00Z"),
            lines("fenwick-db-01", waiting, "2026-03-01T10:30:00Z", count=30, level="warn"),
        ],
    )
    draft = diagnose_digest(ask("why is fenwick-shopfront timing out?", digest))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("fenwick-db-01", "slow_query")
