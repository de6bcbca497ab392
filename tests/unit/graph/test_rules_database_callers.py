"""Callers and the far side they wait on: a caller's database is the one whose own series or lines name it,
and a consumer handing work back to its queue blames no queue."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.dependencies import _named_as_fallback
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.suspects import rank_suspects
from tests.unit.graph.test_rules_callers import _alert, _errors, _move
from tools.facts import Digest


def test_a_callers_database_is_the_one_whose_own_series_name_it_over_one_that_ran_hot_first() -> None:
    """Two managed databases: reports-db at high CPU since 09:20, plots-db's lock time rising at 09:40 a
    step after the caller's first timeout, on series labelled with the caller's user (`user=plotwise`
    for `plotwise-api`)."""
    digest = Digest(
        anomalies=[
            _move(
                "vendor_sql_cpu_utilization",
                "reports-db",
                "2026-01-01T09:20:00Z",
                {"database_id": "reports-db"},
            ),
            _move(
                "vendor_sql_aggregate_lock_time",
                "plots-db",
                "2026-01-01T09:40:00Z",
                {"database_id": "plots-db", "user": "plotwise"},
            ),
            _move(
                "http_server_requests_seconds_max",
                "plotwise-api",
                "2026-01-01T09:39:00Z",
                {"application": "plotwise-api"},
            ),
        ],
        alert_groups=[_alert("VendorSqlHighCpu", "reports-db", "2026-01-01T09:25:00Z", "critical")],
        log_patterns=[
            _errors(
                "plotwise-api",
                "QueryTimeoutException: PreparedStatementCallback; SQL [SELECT ...]; canceling statement",
                "2026-01-01T09:39:09Z",
            )
        ],
    )
    ranking = rank_suspects(digest)
    everyone = {s.service: s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert "plotwise-api" in everyone["plots-db"].relayed_by
    assert not everyone["reports-db"].relayed_by
    doubted = DiagnoseRequest(
        route=Route(
            route="complex",
            resolved_query="waitlist times out. reports-db is at 100% CPU - is that the cause?",
        ),
        evidence=[],
        digest=digest,
        now="2026-01-01T10:30:00Z",
    )
    draft = diagnose_digest(doubted)
    assert draft.root_cause is not None and draft.root_cause.service == "plots-db"


def test_work_handed_back_to_its_queue_blames_no_queue() -> None:
    """A consumer returning failed messages to its queue ("messages go back to q after the visibility
    timeout") names where its work came from, however the queue's name is spelled, not a far side that
    failed."""
    text = "returning 7 batchitemfailures; messages go back to obs-ingest after the visibility timeout"
    assert _named_as_fallback(text, "obs-ingest")
    assert _named_as_fallback("message requeued to obs-ingest (attempt 3)", "obs-ingest")
    assert not _named_as_fallback("publish to obs-ingest timed out", "obs-ingest")
    queue = _move("aws_sqs_approximate_age_of_oldest_message_maximum", "obs-ingest", "2026-01-01T09:41:00Z",
                  {"queue_name": "obs-ingest"})  # fmt: skip
    back = _errors("normalizer", f"[WARNING] {text}", "2026-01-01T09:40:05Z")
    ranking = rank_suspects(Digest(anomalies=[queue], log_patterns=[back]))
    everyone = {s.service: s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert "normalizer" not in everyone["obs-ingest"].blamed_by
