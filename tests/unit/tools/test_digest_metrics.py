"""Metric anomalies on plain series: steps found with their timing; noise, curves, bad data not."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.demo_world.shapes import at, daily, minute_grid, samples, step
from tools.digest import DigestLimits, build_digest
from tools.facts import MetricAnomaly

NOW = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
GRID = minute_grid(NOW, hours=6)


def _metrics(*series: dict[str, Any], evidence_id: str = "metrics-1") -> Evidence:
    return Evidence(
        id=evidence_id,
        source=EvidenceSource.METRICS,
        tool="query_metric",
        title="t",
        summary="s",
        data={"series": list(series)},
        query={},
        status=EvidenceStatus.OK,
    )


def _series(values: list[float], *, metric: str = "m", **labels: str) -> dict[str, Any]:
    return {"metric": metric, "labels": labels, "samples": samples(GRID, values)}


def _anomalies(*series: dict[str, Any]) -> list[MetricAnomaly]:
    return build_digest([_metrics(*series)], now=NOW).anomalies


def test_step_up_is_found_with_its_start_peak_and_ratio() -> None:
    rng = np.random.default_rng(1)
    values = daily(rng, GRID, level=100.0, amplitude=0.2, noise=0.03)
    values = step(rng, GRID, values, start=at(NOW, minutes_before=30), target=400.0, noise=0.02)
    [anomaly] = _anomalies(_series(values, metric="widget_latency", app="orders", pod="p-1"))
    assert anomaly.evidence_id == "metrics-1"
    assert anomaly.service == "orders"
    assert anomaly.direction == "up"
    assert anomaly.change_at == "2030-06-01T11:30:00Z"
    assert 90 < anomaly.baseline < 110 and 380 < anomaly.recent < 420
    assert anomaly.peak >= anomaly.recent
    assert 3.4 < anomaly.ratio < 4.5
    assert anomaly.score >= DigestLimits().min_score


def test_step_down_to_zero_is_found() -> None:
    rng = np.random.default_rng(2)
    values = daily(rng, GRID, level=50.0, noise=0.05)
    values = step(rng, GRID, values, start=at(NOW, minutes_before=20), target=0.0, noise=0.0)
    [anomaly] = _anomalies(_series(values, service="feed"))
    assert anomaly.direction == "down"
    assert anomaly.recent == 0.0 and anomaly.ratio == 0.0
    assert anomaly.change_at == "2030-06-01T11:40:00Z"


def test_rise_from_a_zero_baseline_has_a_large_finite_ratio() -> None:
    values = [0.0] * 330 + [5.0] * 30
    [anomaly] = _anomalies(_series(values, job="worker"))
    assert anomaly.service == "worker"
    assert math.isfinite(anomaly.ratio) and anomaly.ratio > 1000
    assert anomaly.score <= DigestLimits().max_score


@pytest.mark.parametrize("seed", range(8))
def test_healthy_noise_and_daily_shape_yield_no_anomaly(seed: int) -> None:
    rng = np.random.default_rng(seed)
    series = [
        _series(daily(rng, GRID, level=200.0, amplitude=0.6, peak_hour=14, noise=0.05), metric="a"),
        _series(daily(rng, GRID, level=0.3, amplitude=0.3, peak_hour=9, noise=0.1), metric="b"),
        _series([round(v) for v in daily(rng, GRID, level=6.0, amplitude=0.3, noise=0.2)], metric="c"),
        _series(daily(rng, GRID, level=0.02, amplitude=0.2, noise=0.5), metric="d"),
        _series(daily(rng, GRID, level=1e9, amplitude=0.8, peak_hour=20, noise=0.02), metric="e"),
    ]
    assert _anomalies(*series) == []


def test_flat_zero_short_and_nan_series_yield_nothing() -> None:
    nan_heavy = [float("nan") if i % 2 else 1.0 for i in range(len(GRID))]
    few = {"metric": "few", "labels": {}, "samples": [[GRID[i], 9.0 * i] for i in range(5)]}
    junk = {"metric": "junk", "labels": {}, "samples": [["x", "y"], [1], None]}
    assert (
        _anomalies(
            _series([7.0] * len(GRID), metric="flat"),
            _series([0.0] * len(GRID), metric="zero"),
            _series(nan_heavy, metric="nan"),
            few,
            junk,
        )
        == []
    )


def test_a_short_spike_at_the_end_is_not_an_incident() -> None:
    rng = np.random.default_rng(3)
    values = daily(rng, GRID, level=10.0, noise=0.05)
    values[-2:] = [80.0, 10.0]
    assert _anomalies(_series(values)) == []


def test_small_relative_change_is_filtered_even_when_noise_is_tiny() -> None:
    values = [100.0] * 330 + [110.0] * 30  # 10%: below the relative-change bar
    assert _anomalies(_series(values)) == []


def test_samples_after_now_are_ignored() -> None:
    values = [1.0] * len(GRID)
    future = [[GRID[-1] + 60 * i, 500.0] for i in range(1, 60)]
    series = {"metric": "m", "labels": {}, "samples": samples(GRID, values) + future}
    assert _anomalies(series) == []


def test_discovery_results_and_failed_queries_give_no_anomaly() -> None:
    listing = _metrics({"metric": "m", "labels": {"service": "x"}})
    failed = Evidence(
        "metrics-2",
        EvidenceSource.METRICS,
        "query_metric",
        "t",
        "timed out",
        {},
        {},
        EvidenceStatus.TIMEOUT,
    )
    digest = build_digest([listing, failed], now=NOW)
    assert digest.anomalies == []
    assert [(g.evidence_id, g.status, g.reason) for g in digest.gaps] == [
        ("metrics-2", "TIMEOUT", "timed out")
    ]


def test_ranking_prefers_score_then_the_earlier_change_and_is_bounded() -> None:
    series = []
    for i in range(30):
        values = [1.0] * (300 + i) + [50.0] * (60 - i)
        series.append(_series(values, metric=f"m{i:02d}", service=f"s{i}"))
    digest = build_digest([_metrics(*series)], now=NOW, limits=DigestLimits(max_anomalies=5))
    assert [a.metric for a in digest.anomalies] == ["m00", "m01", "m02", "m03", "m04"]


def test_same_series_from_two_queries_is_one_fact() -> None:
    values = [1.0] * 330 + [9.0] * 30
    first, second = _metrics(_series(values)), _metrics(_series(values), evidence_id="metrics-9")
    assert len(build_digest([first, second], now=NOW).anomalies) == 1
