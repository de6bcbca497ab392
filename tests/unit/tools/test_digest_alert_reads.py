"""A firing alert's own metrics that moved in a series too short for the baseline scan are facts."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.build import build_digest

NOW = datetime(2026, 12, 2, 5, 30, tzinfo=UTC)
T0 = NOW.timestamp() - 60


def _item(evidence_id: str, tool: str, data: dict[str, Any], query: dict[str, Any]) -> Evidence:
    return Evidence(
        id=evidence_id,
        source=EvidenceSource.METRICS,
        tool=tool,
        title=tool,
        summary="",
        data=data,
        query=query,
        status=EvidenceStatus.OK,
    )


def _discovery(*linked: str) -> Evidence:
    reads = [{"metric": name, "kind": "gauge", "reason": "alert SomethingFiring"} for name in linked]
    reads.append({"metric": "other_gauge", "kind": "gauge", "reason": "implicated"})
    return _item("metrics-1", "list_metrics", {"reads": reads}, {})


def _read(evidence_id: str, metric: str, values: list[float]) -> Evidence:
    samples = [[T0 + 15 * n, value] for n, value in enumerate(values)]
    series = [{"metric": metric, "labels": {"instance": "box-1", "job": "exporter"}, "samples": samples}]
    return _item(evidence_id, "read_metric", {"series": series}, {"metric": metric})


def test_a_short_series_of_the_alerts_metric_that_moved_is_a_fact() -> None:
    digest = build_digest(
        [_discovery("free_space_bytes"), _read("metrics-2", "free_space_bytes", [67e6, 67e6, 4.026e6])],
        now=NOW,
    )
    [moved] = digest.anomalies
    assert (moved.metric, moved.direction, moved.baseline, moved.recent) == (
        "free_space_bytes",
        "down",
        67e6,
        4.026e6,
    )
    assert moved.change_at == "2026-12-02T05:29:30Z"
    assert moved.labels["instance"] == "box-1"


def test_a_target_that_went_down_is_a_fact_about_it() -> None:
    digest = build_digest([_discovery("up"), _read("metrics-2", "up", [1, 1, 0, 0])], now=NOW)
    assert [(a.metric, a.baseline, a.recent) for a in digest.anomalies] == [("up", 1.0, 0.0)]


def test_no_fact_when_the_series_did_not_move_came_back_or_is_not_the_alerts() -> None:
    digest = build_digest(
        [
            _discovery("flat", "returned"),
            _read("metrics-2", "flat", [5, 5, 5]),
            _read("metrics-3", "returned", [1, 9, 1]),
            _read("metrics-4", "other_gauge", [0, 0, 100]),
        ],
        now=NOW,
    )
    assert digest.anomalies == []


def test_a_long_series_is_left_to_the_baseline_scan() -> None:
    # A swing the series makes all along: the scan judges it normal, and nothing is added.
    swinging = [78.0, 83.0] * 20 + [83.0]
    digest = build_digest([_discovery("pool_used"), _read("metrics-2", "pool_used", swinging)], now=NOW)
    assert digest.anomalies == []


def test_a_move_seconds_old_at_the_end_of_a_long_series_is_a_fact() -> None:
    # Twenty quiet points, then the newest one jumps: too few recent points for the baseline scan.
    keys = [0.0, 1.0] * 10 + [20000.0]
    digest = build_digest([_discovery("stored_keys"), _read("metrics-2", "stored_keys", keys)], now=NOW)
    assert [(a.metric, a.direction, a.recent) for a in digest.anomalies] == [("stored_keys", "up", 20000.0)]
