"""A client's errors quoting a failure its own signals do not show, naming no server ("disk usage exceeded
flood-stage watermark"): the one system whose own alerts or series said it first is where it happened,
even when it said so before the incident's window began."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.suspects import rank_suspects
from tests.unit.graph.test_rules_relays_and_strays import _alert, _pattern
from tools.facts import Digest

REJECTED_WRITES = _pattern(
    "indexer",
    "BulkIndexError: 500 document(s) failed: cluster_block_exception: disk usage exceeded flood-stage",
    120,
    "2026-01-01T08:10:00Z",
)


def test_a_failure_a_client_quotes_without_naming_its_server_points_to_the_one_system_saying_it() -> None:
    """The indexer's rejections name no server and no far side, only a failure (disk usage exceeded)
    that its own signals do not show: the one system whose alert says it, since before, is where it
    happened, and began when that alert fired, not when its own later lines did."""
    full = _alert("SearchDiskOutOfSpace", "search", "search disk out of space", "2026-01-01T07:20:00Z")
    late = _pattern(
        "search", "flood stage disk watermark [95%] exceeded on [data-2]", 6, "2026-01-01T08:15:00Z"
    )
    ranking = rank_suspects(
        Digest(alert_groups=[full], log_patterns=[REJECTED_WRITES, replace(late, level="WARN")])
    )
    root = ranking.ranked[0]
    assert root.service == "search" and "indexer" in root.relayed_by
    assert root.onset is not None and root.onset.isoformat().startswith("2026-01-01T07:20")
    # The same alert firing only after the rejections began explains nothing.
    after = replace(full, first_started="2026-01-01T08:20:00Z")
    later = rank_suspects(Digest(alert_groups=[after], log_patterns=[REJECTED_WRITES]))
    assert not any(s.relayed_by for s in later.ranked)


def test_a_system_saying_the_quoted_failure_long_before_the_incident_is_still_its_far_side() -> None:
    """The cluster's disk warning fired hours before its clients' rejections, outside the incident's
    window: not a bystander, since it said first what they quote."""
    full = replace(
        _alert("SearchDiskLow", "search", "search disk out of space", "2026-01-01T04:00:00Z"),
        severity="warning",
    )
    heap = replace(full, alertname="SearchHeapHigh", summary="heap usage high")
    backfill = replace(REJECTED_WRITES, service="backfill", first_seen="2026-01-01T08:12:00Z")
    ranking = rank_suspects(Digest(alert_groups=[full], log_patterns=[REJECTED_WRITES, backfill]))
    assert ranking.ranked[0].service == "search" and not ranking.herrings
    # Saying another failure, it stays out.
    other = rank_suspects(Digest(alert_groups=[heap], log_patterns=[REJECTED_WRITES, backfill]))
    assert [s.service for s in other.herrings] == ["search"]
