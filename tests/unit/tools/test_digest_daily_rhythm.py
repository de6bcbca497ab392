"""A move the same series made at the same hour the day before is its daily rhythm, not an anomaly."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np

from tests.unit.tools.test_digest_metrics import NOW
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.demo_world.shapes import at, daily, minute_grid, samples, step
from tools.digest import build_digest
from tools.digest.rhythm import split_routine
from tools.facts import MetricAnomaly

DAY_S = 86_400
GRID = minute_grid(NOW, hours=2)


def _read(evidence_id: str, series: dict[str, Any], days_before: int = 0) -> Evidence:
    return Evidence(
        id=evidence_id,
        source=EvidenceSource.METRICS,
        tool="read_metric",
        title="t",
        summary="s",
        data={"series": [series]},
        query={"metric": "backend_sessions"} | ({"days_before": days_before} if days_before else {}),
        status=EvidenceStatus.OK,
    )


def _peak(seed: int, target: float) -> list[float]:
    """Two hours around 40 sessions; 40 minutes ago the morning peak lifts them to `target`."""
    rng = np.random.default_rng(seed)
    values = daily(rng, GRID, level=40.0, amplitude=0.0, noise=0.05)
    return step(rng, GRID, values, start=at(NOW, minutes_before=40), target=target, noise=0.02)


def _yesterday(values: list[float]) -> dict[str, Any]:
    grid = [t - DAY_S for t in GRID]
    return {"metric": "backend_sessions", "labels": {"proxy": "web"}, "samples": samples(grid, values)}


def _today(values: list[float]) -> dict[str, Any]:
    return {"metric": "backend_sessions", "labels": {"proxy": "web"}, "samples": samples(GRID, values)}


def test_the_same_peak_at_the_same_hour_the_day_before_is_routine() -> None:
    today = _read("metrics-1", _today(_peak(1, 300.0)))
    earlier = _read("metrics-2", _yesterday(_peak(2, 290.0)), days_before=1)
    digest = build_digest([today, earlier], now=NOW)
    assert digest.anomalies == []
    [move] = digest.routine
    assert (move.anomaly.evidence_id, move.earlier_evidence_id, move.days_before) == (
        "metrics-1",
        "metrics-2",
        1,
    )
    assert 280 < move.earlier_peak < 310


def test_a_peak_far_above_the_day_befores_is_still_an_anomaly() -> None:
    today = _read("metrics-1", _today(_peak(1, 900.0)))
    earlier = _read("metrics-2", _yesterday(_peak(2, 290.0)), days_before=1)
    digest = build_digest([today, earlier], now=NOW)
    assert [a.evidence_id for a in digest.anomalies] == ["metrics-1"] and digest.routine == []


def test_a_quiet_day_before_leaves_the_move_an_anomaly() -> None:
    today = _read("metrics-1", _today(_peak(1, 300.0)))
    quiet = _read("metrics-2", _yesterday(_peak(3, 40.0)), days_before=1)
    digest = build_digest([today, quiet], now=NOW)
    assert [a.evidence_id for a in digest.anomalies] == ["metrics-1"] and digest.routine == []


def test_a_series_already_high_the_day_before_repeats_no_move() -> None:
    """Stuck high since yesterday (or only growing): the day before made no move at this hour."""
    today = _read("metrics-1", _today(_peak(1, 300.0)))
    stuck = _read("metrics-2", _yesterday([300.0] * len(GRID)), days_before=1)
    digest = build_digest([today, stuck], now=NOW)
    assert [a.evidence_id for a in digest.anomalies] == ["metrics-1"] and digest.routine == []


def test_a_read_of_the_past_is_compared_never_scanned_for_moves_of_its_own() -> None:
    earlier = _read("metrics-2", _yesterday(_peak(2, 290.0)), days_before=1)
    assert build_digest([earlier], now=NOW).anomalies == []
    assert build_digest([replace(earlier, query={})], now=NOW).anomalies  # the same read of now moves


def _climb(start_minutes_before: int, level: float) -> list[float]:
    """Flat at 245 until `start_minutes_before` now, then a climb that reaches `level` at now."""
    start = NOW.timestamp() - start_minutes_before * 60
    climb = (level - 245.0) / (start_minutes_before * 60)
    return [245.0 + max(0.0, t - start) * climb for t in GRID]


def _moved_early() -> MetricAnomaly:
    """A climb the scan found 104 minutes ago: 16 minutes into the two-hour read, less than the slack."""
    return MetricAnomaly(
        evidence_id="metrics-1",
        metric="backend_sessions",
        labels={"proxy": "web"},
        service="web",
        baseline=245.0,
        recent=482.0,
        peak=656.0,
        change_at=(NOW - timedelta(minutes=104)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        direction="up",
        ratio=2.0,
        score=10.0,
    )


def test_a_move_early_in_the_read_is_judged_by_the_day_befores_samples_before_its_hour() -> None:
    earlier = _read("metrics-2", _yesterday(_climb(104, 690.0)), days_before=1)
    kept, routine = split_routine([_moved_early()], [earlier], now=NOW)
    assert kept == [] and [m.earlier_evidence_id for m in routine] == ["metrics-2"]


def test_a_day_before_already_high_before_an_early_move_repeats_no_move() -> None:
    stuck = _read("metrics-2", _yesterday([600.0] * len(GRID)), days_before=1)
    kept, routine = split_routine([_moved_early()], [stuck], now=NOW)
    assert [a.evidence_id for a in kept] == ["metrics-1"] and routine == []
