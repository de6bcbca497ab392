"""Moves of a firing alert's own metrics that the baseline scan cannot see (tools/digest/alert_reads.py)."""

from __future__ import annotations

from typing import Any

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.alert_reads import alert_read_moves
from tools.digest.limits import DigestLimits

START, STEP = 1_800_000_000.0, 15
END = START + 7_200


def _evidence(samples: list[list[float]], *, metric: str = "rate(requests_total)") -> list[Evidence]:
    discovery = Evidence(
        "metrics-1",
        EvidenceSource.METRICS,
        "list_metrics",
        "Metrics to read",
        "",
        {"reads": [{"metric": "requests_total", "kind": "counter", "reason": "alert HighErrorRate"}]},
        {},
        EvidenceStatus.OK,
    )
    query: dict[str, Any] = {
        "metric": "requests_total",
        "step_seconds": STEP,
        "start": "2027-01-15T08:00:00Z",
        "end": "2027-01-15T10:00:00Z",
    }
    labels = {"handler": "/pay", "job": "shop", "instance": "shop-1"}
    read = Evidence(
        "metrics-2",
        EvidenceSource.METRICS,
        "read_metric",
        "rate(requests_total) (counter)",
        "",
        {"series": [{"metric": metric, "labels": labels, "samples": samples}]},
        query,
        EvidenceStatus.OK,
    )
    return [discovery, read]


def test_a_counter_series_born_with_the_fault_rose_from_nothing() -> None:
    """A handler's 5xx series appears with its first failure: two points at the window's end, nothing
    before, is a rise from zero at its first point (the earlier-points rule has nothing to compare)."""
    born = [[END - 15, 9.0], [END, 10.2]]
    [move] = alert_read_moves(_evidence(born), [], limits=DigestLimits())
    assert (move.baseline, move.recent, move.direction, move.service) == (0.0, 10.2, "up", "shop")
    assert move.change_at == "2027-01-15T09:59:45Z"


def test_a_series_there_from_the_start_or_not_a_rate_is_not_born() -> None:
    steady = [[START + 15 * k, 5.0] for k in range(3)]
    assert alert_read_moves(_evidence(steady), [], limits=DigestLimits()) == []
    gauge = [[END - 15, 9.0], [END, 10.2]]
    assert alert_read_moves(_evidence(gauge, metric="queue_depth"), [], limits=DigestLimits()) == []


def test_a_move_shorter_than_the_scans_recent_part_is_seen() -> None:
    """`up` at 1 for 400 points, then 0 for the last five: the scan's recent part is twelve points
    (3 % of 400), so it cannot judge the move yet; the alert that fires on it says it matters."""
    up = [[START + 15 * k, 1.0] for k in range(400)] + [[START + 15 * (400 + k), 0.0] for k in range(5)]
    [move] = alert_read_moves(_evidence(up, metric="requests_total"), [], limits=DigestLimits())
    assert (move.baseline, move.recent, move.direction) == (1.0, 0.0, "down")
    assert move.change_at == "2027-01-15T09:40:00Z"
