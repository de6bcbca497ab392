"""A restart just before the trouble of the system a question asks about is its trigger, though no line
names it: a cache that came back empty a minute before its database's load rose is that load's cause.
A restart long before, or two restarts at once, leave the asked system its own trouble."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest, MetricAnomaly

QUESTION = "What is overloading store-db-2?"


def _restart(service: str, at: str) -> list[MetricAnomaly]:
    age = move(f"{service}_uptime_seconds", service, at, {"instance": f"{service}-1"})
    items = move(f"{service}_current_items", service, at, {"instance": f"{service}-1"})
    return [
        replace(age, baseline=900_000.0, recent=300.0, direction="down", ratio=0.0003, event="restart"),
        replace(items, baseline=800_000.0, recent=150_000.0, direction="down", ratio=0.19),
    ]


def _digest(*restarts: tuple[str, str]) -> Digest:
    load = move(
        "mysql_global_status_threads_running", "mysqld", "2026-03-01T10:13:00Z", {"instance": "store-db-2"}
    )
    return Digest(
        anomalies=[*(a for service, at in restarts for a in _restart(service, at)), load],
        alert_groups=[
            alert(
                "MySQLThreadsRunningHigh",
                "mysqld",
                "2026-03-01T10:16:00Z",
                {"instance": "store-db-2"},
                "More than 40 threads running on store-db-2",
            )
        ],
        log_patterns=[
            lines("shelf-api", "db read for shelf <*> exceeded 1500ms", "2026-03-01T10:14:00Z", level="warn")
        ],
    )


def _root(digest: Digest) -> str:
    draft = diagnose_digest(ask(QUESTION, digest))
    assert draft.root_cause is not None
    return draft.root_cause.service


def test_a_restart_a_minute_before_the_asked_systems_load_rose_is_its_trigger() -> None:
    draft = diagnose_digest(ask(QUESTION, _digest(("memcached", "2026-03-01T10:12:00Z"))))
    assert draft.root_cause is not None and "memcached" in draft.root_cause.service
    assert "restarted" in draft.root_cause.statement
    # The system the question asked about is still in the answer: what fires there.
    assert "store-db-2" in draft.summary or "mysqld" in draft.summary


def test_a_restart_long_before_leaves_the_asked_system_its_own_trouble() -> None:
    assert _root(_digest(("memcached", "2026-03-01T09:40:00Z"))) in ("store-db-2", "mysqld")


def test_two_restarts_at_once_say_nothing_about_which() -> None:
    both = _digest(("memcached", "2026-03-01T10:12:00Z"), ("sessioncache", "2026-03-01T10:11:00Z"))
    assert _root(both) in ("store-db-2", "mysqld")
