"""Counters read as rates (or increases), and gradual trends from a flat baseline.

Synthetic series show each rule alone; the held-out worlds (clinic, remit) show the rules find what
outside authors' counters and filling volumes mean, and the healthy worlds that they add nothing.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.unit.tools.test_digest_worlds import _world_digest
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.demo_world.shapes import minute_grid, samples
from tools.digest import DigestLimits, build_digest
from tools.digest.counters import cumulative_increase, is_counter, per_second_rates
from tools.digest.trend import trend_onset
from tools.facts import Digest, MetricAnomaly
from tools.world import load_world

NOW = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
GRID = minute_grid(NOW, hours=6)  # 360 samples, one a minute
WORLDS = Path(__file__).resolve().parents[2] / "data" / "worlds"


def _anomalies(*series: dict[str, Any]) -> list[MetricAnomaly]:
    item = Evidence(
        "metrics-1",
        EvidenceSource.METRICS,
        "query_metric",
        "t",
        "s",
        {"series": list(series)},
        {},
        EvidenceStatus.OK,
    )
    return build_digest([item], now=NOW).anomalies


def _series(values: list[float] | np.ndarray, *, metric: str, **labels: str) -> dict[str, Any]:
    return {"metric": metric, "labels": labels, "samples": samples(GRID, list(values))}


def _counter(per_minute: np.ndarray, *, start: float = 1000.0) -> np.ndarray:
    """A counter that grows by `per_minute[i]` in minute i (whole events, as counters count)."""
    return start + np.cumsum(np.round(per_minute))


def test_error_counter_burst_is_read_as_a_per_second_rate() -> None:
    rng = np.random.default_rng(1)
    per_minute = rng.poisson(3.0, len(GRID)).astype(float)
    per_minute[-30:] = rng.poisson(300.0, 30)
    [anomaly] = _anomalies(_series(_counter(per_minute), metric="errors_total", app="orders"))
    assert anomaly.metric == "rate(errors_total)"
    assert anomaly.direction == "up"
    assert 0.02 <= anomaly.baseline <= 0.08  # about 3 a minute, per second
    assert 4.5 <= anomaly.recent <= 5.5  # about 300 a minute, per second
    assert anomaly.change_at == "2030-06-01T11:31:00Z"  # the first of the last 30 minutes


def test_steady_counter_with_a_reset_yields_no_anomaly() -> None:
    rng = np.random.default_rng(2)
    values = _counter(rng.poisson(600.0, len(GRID)).astype(float), start=5e6)
    values[200:] -= values[199] - 40.0  # the process restarted: the counter begins again near 0
    assert is_counter("requests_total", values)
    assert _anomalies(_series(values, metric="requests_total", app="web")) == []


def test_traffic_drop_on_a_counter_is_found_through_the_reset() -> None:
    rng = np.random.default_rng(3)
    per_minute = rng.poisson(600.0, len(GRID)).astype(float)
    per_minute[-40:] = rng.poisson(60.0, 40)
    values = _counter(per_minute, start=2e6)
    values[100:] -= values[99]  # a reset long before the drop
    [anomaly] = _anomalies(_series(values, metric="http_requests_total", app="web"))
    assert anomaly.metric == "rate(http_requests_total)"
    assert anomaly.direction == "down"
    assert 9.0 <= anomaly.baseline <= 11.0 and 0.7 <= anomaly.recent <= 1.3
    assert anomaly.change_at == "2030-06-01T11:21:00Z"


def test_unnamed_series_that_always_rises_is_read_as_a_counter() -> None:
    per_minute = np.full(len(GRID), 60.0)
    per_minute[-30:] = 1200.0
    [anomaly] = _anomalies(_series(_counter(per_minute), metric="bytes_sent", app="cdn"))
    assert anomaly.metric == "rate(bytes_sent)"
    assert (anomaly.baseline, anomaly.recent) == (1.0, 20.0)


def test_gauge_with_a_counter_suffix_is_read_as_a_gauge() -> None:
    rng = np.random.default_rng(4)
    values = 12.0 + rng.normal(0.0, 1.0, len(GRID))
    values[-30:] += 50.0
    [anomaly] = _anomalies(_series(values, metric="pg_stat_activity_count", job="db"))
    assert anomaly.metric == "pg_stat_activity_count"
    assert 55 <= anomaly.recent <= 70


def test_rarely_moving_counter_is_read_as_its_increase() -> None:
    values = np.full(len(GRID), 7.0)
    for restart in (320, 330, 340, 350):
        values[restart:] += 1.0
    [anomaly] = _anomalies(_series(values, metric="restarts_total", pod="api-0"))
    assert anomaly.metric == "increase(restarts_total)"
    assert (anomaly.baseline, anomaly.peak, anomaly.direction) == (0.0, 4.0, "up")
    assert anomaly.change_at == "2030-06-01T11:21:00Z"


def test_rates_count_a_reset_from_zero_and_ignore_a_small_glitch() -> None:
    times = np.array([0.0, 60.0, 120.0, 180.0, 240.0])
    values = np.array([600.0, 1200.0, 60.0, 59.0, 119.0])  # reset to 60, then a 1-count glitch
    stamps, rates = per_second_rates(times, values)
    assert stamps.tolist() == [60.0, 120.0, 180.0, 240.0]
    assert rates.tolist() == [10.0, 1.0, 0.0, 1.0]
    assert cumulative_increase(values).tolist() == [0.0, 600.0, 660.0, 660.0, 720.0]


def test_noisy_gauges_are_never_counters() -> None:
    rng = np.random.default_rng(5)
    noisy = 100.0 + rng.normal(0.0, 3.0, 200)
    rising = np.linspace(10.0, 90.0, 200) + rng.normal(0.0, 2.0, 200)
    assert not is_counter("queue_depth_total", noisy)
    assert not is_counter("disk_used_bytes", rising)
    assert not is_counter("temperature", -np.arange(200.0))


def test_disk_filling_steadily_after_a_flat_baseline_is_found() -> None:
    rng = np.random.default_rng(6)
    used = 40e9 + rng.normal(0.0, 0.05e9, len(GRID))
    minutes = np.arange(len(GRID))
    used += np.where(minutes >= 300, (minutes - 300) * 0.5e9, 0.0)  # filling for the last hour
    [anomaly] = _anomalies(_series(used, metric="volume_used_bytes", app="ledger"))
    assert anomaly.metric == "volume_used_bytes"
    assert anomaly.direction == "up"
    assert abs(anomaly.baseline - 40e9) < 0.1e9
    assert 50e9 < anomaly.recent < anomaly.peak < 71e9
    onset = datetime.fromisoformat(anomaly.change_at or "")
    assert abs((onset - datetime(2030, 6, 1, 11, 0, tzinfo=UTC)).total_seconds()) <= 10 * 60


def test_volume_that_filled_and_is_now_full_is_found() -> None:
    rng = np.random.default_rng(7)
    minutes = np.arange(len(GRID))
    used = np.clip(100e9 + np.maximum(0, minutes - 60) * 0.4e9, None, 200e9)
    used = used + rng.normal(0.0, 0.2e9, len(GRID))
    [anomaly] = _anomalies(_series(used, metric="kubelet_volume_stats_used_bytes", app="ledger"))
    assert anomaly.direction == "up" and anomaly.recent > 195e9 and anomaly.baseline < 101e9
    # The fill began before the level scan's shortest baseline: the trend rule is what finds it.
    found = trend_onset(np.array(GRID, dtype=float), used, limits=DigestLimits(), floor=0.0)
    assert found is not None and found["change_at"] == anomaly.change_at
    onset = datetime.fromisoformat(anomaly.change_at or "")
    assert abs((onset - datetime(2030, 6, 1, 7, 0, tzinfo=UTC)).total_seconds()) <= 10 * 60


@pytest.mark.parametrize("seed", range(6))
def test_smoothly_accelerating_growth_is_not_a_trend(seed: int) -> None:
    rng = np.random.default_rng(seed)
    hours = np.arange(len(GRID)) / 60
    sessions = 4000 * np.exp(hours / 4.3) * (1 + rng.normal(0.0, 0.01, len(GRID)))
    cpu = 9 * np.exp(hours / 4.3) + rng.normal(0.0, 0.05, len(GRID))
    assert (
        _anomalies(
            _series(sessions, metric="active_sessions", pod="edge-0"),
            _series(cpu, metric="cpu_utilisation_percent", pod="edge-0"),
        )
        == []
    )


def _held_out(name: str) -> Digest:
    return _world_digest(load_world(WORLDS / name), [])


def test_clinic_counters_are_rates_and_name_the_error_burst() -> None:
    digest = _held_out("clinic")
    assert not any(a.metric == "http_requests_total" for a in digest.anomalies)
    errors = [a for a in digest.anomalies if a.labels.get("code") == "500"]
    assert errors and all(a.metric == "rate(http_requests_total)" for a in errors)
    assert all(a.direction == "up" and a.recent < 100 for a in errors)  # per second, not a total


def test_remit_finds_the_filling_journal_volume_and_the_failing_transfers() -> None:
    digest = _held_out("remit")
    [volume] = [a for a in digest.anomalies if a.metric == "kubelet_volume_stats_used_bytes"]
    assert (volume.service, volume.direction) == ("ledger-writer", "up")
    assert volume.recent >= 0.99 * 200e9 and math.isclose(volume.baseline, 110e9, rel_tol=0.01)
    failed = [a for a in digest.anomalies if a.labels.get("outcome") == "failed"]
    assert [a.metric for a in failed] == ["rate(remit_transfers_total)"]
    assert failed[0].change_at == "2027-02-17T13:22:00Z"


@pytest.mark.parametrize("world", ["analytics", "broadcast"])
def test_healthy_held_out_worlds_stay_quiet(world: str) -> None:
    assert _held_out(world).anomalies == []


def test_a_series_a_function_computed_is_never_read_as_a_counter_again() -> None:
    """A rate that rises on most steps is still a rate: rating it again stated rate(rate(x))."""
    from tools.digest.counters import is_counter

    rising = np.array([float(step) for step in range(20)])
    assert is_counter("latency_seconds_sum", rising)
    assert is_counter("unnamed_series", rising)
    for computed in ("rate(latency_seconds_sum)", "p99(latency_seconds)", "increase(errors_total)"):
        assert not is_counter(computed, rising), computed


def test_a_sparse_count_without_a_counter_suffix_is_a_counter() -> None:
    """Envoy-style `..._rq_5xx`: whole numbers that never fall and move on a few steps only."""
    per_minute = np.zeros(len(GRID))
    per_minute[40:60] = 200.0  # a burst long over
    per_minute[[90, 130]] = 1.0  # a stray failure now and then since
    assert is_counter("upstream_rq_5xx", _counter(per_minute))
    assert not is_counter("queue_depth", _counter(per_minute) + np.where(np.arange(len(GRID)) % 7, 0, -3))


def test_a_burst_that_ended_long_ago_and_a_steady_trickle_are_no_current_shift() -> None:
    ended = np.zeros(len(GRID))
    ended[40:60] = 200.0
    ended[[90, 130]] = 1.0
    rng = np.random.default_rng(3)
    trickle = (rng.random(len(GRID)) < 0.12).astype(float)  # a failure every eight minutes or so
    assert _anomalies(_series(_counter(ended), metric="upstream_rq_5xx", app="gallery")) == []
    assert _anomalies(_series(_counter(trickle), metric="failures_total", app="gallery")) == []


def test_a_restart_counter_that_began_counting_is_read_by_its_increase() -> None:
    restarts = np.zeros(len(GRID))
    restarts[[-40, -30, -20, -10, -2]] = 1.0
    [anomaly] = _anomalies(_series(_counter(restarts, start=0.0), metric="restarts_total", pod="scorer-0"))
    assert anomaly.metric == "increase(restarts_total)"
    assert anomaly.baseline == 0 and anomaly.peak == 5


def test_an_unnamed_counter_read_at_a_finer_step_than_its_scrape_is_still_a_counter() -> None:
    """A 60 s scrape read at a 45 s step stands still on a third of the steps (and on more as its rate
    is low): its rises are judged among the steps that moved, so a reset and a tenfold rate after it
    read as a rate, not as a process restart."""
    rng = np.random.default_rng(5)
    scrapes = _counter(rng.poisson(2.0, 240).astype(float), start=4000.0)
    scrapes[180:] = np.cumsum(rng.poisson(150.0, 60))  # restarted, and counting fast from zero
    steps = np.arange(0, 240 * 60, 45)
    stairs = scrapes[steps // 60]  # each read returns the last scrape
    assert is_counter("listener_ssl_connection_error", stairs)
    gauge = 50 + rng.normal(0, 3, len(steps))
    assert not is_counter("listener_connections", gauge)
