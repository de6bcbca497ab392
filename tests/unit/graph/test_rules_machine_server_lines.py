"""A host agent's job on one machine is that machine when a stream's lines came from it (a database
server's `mysqld` lines with `host=bookdb-7`); the machine is the database its callers' pool and
persistence errors wait on, though they name no database and no host."""

from __future__ import annotations

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest

NODE = {"job": "node", "instance": "bookdb-7:9100", "mountpoint": "/var/lib/db"}
FULL = "[ERROR] [Server] Disk is full writing './binlog.000412' (OS errno 28 - No space left on device)"


def _digest(server_host: str | None) -> Digest:
    return Digest(
        anomalies=[move("node_filesystem_avail_bytes", "node", "2026-03-01T10:40:00Z", NODE)],
        alert_groups=[alert("NodeFilesystemAlmostOutOfSpace", "node", "2026-03-01T10:41:00Z", NODE, "disk")],
        log_patterns=[
            lines("mysqld", FULL, "2026-03-01T10:48:07Z", 4, host=server_host),
            lines(
                "booking-api",
                "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
                "2026-03-01T10:48:38Z",
                120,
                level="warn",
            ),
            lines(
                "booking-api",
                "createBooking failed: CannotCreateTransactionException: Could not open JPA EntityManager",
                "2026-03-01T10:48:38Z",
                90,
            ),
        ],
    )


def test_the_machine_a_servers_lines_came_from_is_the_database_its_callers_wait_on() -> None:
    draft = diagnose_digest(ask("Why can't customers place bookings on booking-api?", _digest("bookdb-7")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("bookdb-7", "disk_full")
    assert "lines of mysqld" in draft.root_cause.statement


def test_without_the_host_the_servers_lines_are_not_the_machines_own() -> None:
    draft = diagnose_digest(ask("Why can't customers place bookings on booking-api?", _digest(None)))
    assert draft.root_cause is not None and "lines of mysqld" not in draft.root_cause.statement
