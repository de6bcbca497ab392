"""A system the question asks about whose telemetry cannot say how it is: no series measures it and its
lines are absent or stopped long ago. The verdict is inconclusive, never healthy; a system with a
measuring series, or lines up to now, is judged as before."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, EvidenceRef, Route
from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import NOW, lines
from tools.facts import Digest

QUESTION = "Merchants say payouts have been failing since about 10am. What's wrong with payout-gw?"
CHECKED = [
    EvidenceRef(id="metrics-3", source="metrics", tool="read_metric", title="t", status="OK", summary=""),
    EvidenceRef(id="logs-5", source="logs", tool="query_logs", title="t", status="OK", summary=""),
]


def _ask(digest: Digest) -> DiagnoseRequest:
    route = Route(route="complex", resolved_query=QUESTION, services=["payout-gw"])
    return DiagnoseRequest(route=route, evidence=CHECKED, digest=digest, now=NOW, services=["payout-gw"])


def _submitted(last: str) -> Digest:
    pattern = replace(
        lines("payout-gw", "payout <*> submitted", "2026-03-01T08:00:00Z", level="info"),
        last_seen=last,
        evidence_id="logs-5",
    )
    return Digest(log_patterns=[pattern], names={"payout-gw"}, measured={"ledger-db-1"})


def test_a_stream_that_went_silent_with_no_series_is_inconclusive_with_its_last_line() -> None:
    draft = diagnose_digest(_ask(_submitted("2026-03-01T09:47:12Z")))
    assert draft.verdict == "inconclusive" and draft.root_cause is None
    assert "2026-03-01T09:47:12Z" in draft.summary and "no metric series" in draft.summary
    assert "logs-5" in draft.findings[0].evidence_ids


def test_a_system_with_neither_series_nor_lines_is_inconclusive() -> None:
    draft = diagnose_digest(_ask(Digest(names={"payout-gw"}, measured={"ledger-db-1"})))
    assert draft.verdict == "inconclusive" and "no log line" in draft.summary


def test_lines_up_to_now_let_the_system_be_judged_healthy() -> None:
    assert diagnose_digest(_ask(_submitted("2026-03-01T10:58:00Z"))).verdict == "healthy"


def test_a_measuring_series_lets_the_system_be_judged_healthy() -> None:
    digest = replace(_submitted("2026-03-01T09:47:12Z"), measured={"payout-gw"})
    assert diagnose_digest(_ask(digest)).verdict == "healthy"


def test_no_series_read_at_all_is_the_sources_silence_not_the_systems() -> None:
    draft = diagnose_digest(_ask(replace(_submitted("2026-03-01T09:47:12Z"), measured=set())))
    assert "no metric series read measures" not in draft.summary


def test_a_series_naming_the_system_inside_a_resource_path_measures_it() -> None:
    path = "projects/acme/locations/eu/instances/payout-gw"
    digest = replace(_submitted("2026-03-01T09:47:12Z"), measured={path})
    assert diagnose_digest(_ask(digest)).verdict == "healthy"


def test_the_count_of_lines_before_the_silence_is_one_the_evidence_states() -> None:
    """One pattern's count is in its evidence; a sum over several is no number any tool returned (the
    guard rejected it, and the repaired answer was left with nothing)."""
    one = _submitted("2026-03-01T09:47:12Z")
    [pattern] = one.log_patterns
    assert f"({pattern.count} lines before)" in diagnose_digest(_ask(one)).summary
    failed = replace(pattern, template="payout <*> failed", count=7)
    two = replace(one, log_patterns=[pattern, failed])
    assert "lines before" not in diagnose_digest(_ask(two)).summary
