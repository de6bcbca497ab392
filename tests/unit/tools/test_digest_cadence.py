"""A read finer than the scrape: a 15 s range query over a 60 s scrape repeats each value four times.

Prometheus answers every step with the newest sample in its lookback, so a counter read that way
rises on one step in four; read as it comes, its per-step rate is noise and a real rise goes unseen.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

from tests.unit.tools.test_digest_counters import NOW
from tests.unit.tools.test_digest_counters import _anomalies as anomalies_of
from tools.digest.cadence import at_scrape_spacing
from tools.facts import MetricAnomaly

SCRAPES = 120  # two hours scraped once a minute
STEP_S = 15


def _read_at_step(scraped: np.ndarray) -> list[list[float]]:
    """What a 15 s range query returns over a series scraped every 60 s: the last scrape at each step."""
    start = NOW.timestamp() - (SCRAPES - 1) * 60
    steps = np.arange(start, NOW.timestamp() + 1, STEP_S)
    newest = ((steps - start) // 60).astype(int)
    return [[float(t), float(scraped[i])] for t, i in zip(steps, newest, strict=True)]


def _anomalies(samples: list[list[float]], metric: str) -> list[MetricAnomaly]:
    return anomalies_of({"metric": metric, "labels": {"job": "store", "pod": "store-2"}, "samples": samples})


def test_a_counter_scraped_slower_than_the_read_step_shows_its_rise() -> None:
    """An fsync-time sum that grows 0.16 s/s, then 60 s/s from half an hour ago: read at a 15 s step its
    rise is found, at its own rate and within a scrape of when it began."""
    rng = np.random.default_rng(3)
    per_minute = 0.16 * 60 * rng.uniform(0.8, 1.2, SCRAPES)
    per_minute[-30:] = 60 * 60 * rng.uniform(0.8, 1.2, 30)
    [anomaly] = _anomalies(_read_at_step(2000 + np.cumsum(per_minute)), "disk_fsync_seconds_sum")
    assert anomaly.metric == "rate(disk_fsync_seconds_sum)"
    assert anomaly.direction == "up"
    assert 0.1 < anomaly.baseline < 0.25 and 45 < anomaly.recent < 75
    began = NOW - timedelta(minutes=30)
    assert anomaly.change_at is not None
    assert abs(datetime.fromisoformat(anomaly.change_at) - began) <= timedelta(minutes=2)


def test_a_counter_that_stopped_counting_is_still_seen_to_stop() -> None:
    """Dropping repeats keeps the newest sample and every scrape's value: a count that stood still for
    its last twenty minutes reads as a fall to nothing, not as a shorter series."""
    rng = np.random.default_rng(4)
    per_minute = 50 * rng.uniform(0.8, 1.2, SCRAPES)
    per_minute[-20:] = 0.0
    [anomaly] = _anomalies(_read_at_step(1000 + np.cumsum(per_minute)), "orders_written_total")
    assert anomaly.metric == "rate(orders_written_total)"
    assert anomaly.direction == "down" and anomaly.recent == 0


def test_series_without_regular_repeats_are_left_as_read() -> None:
    """A gauge that changes on every step, one that holds a value now and then, and a short read are
    unchanged: only regular runs of one value are a finer-than-scrape read."""
    rng = np.random.default_rng(5)
    times = np.arange(0.0, 480 * 15, 15)
    noisy = 50 + rng.normal(0, 3, len(times))
    held = np.repeat(rng.normal(10, 1, 60), rng.integers(1, 15, 60))[: len(times)]
    for values in (noisy, held[: len(times)], noisy[:5]):
        kept_times, kept = at_scrape_spacing(times[: len(values)], values)
        assert np.array_equal(kept, values) and np.array_equal(kept_times, times[: len(values)])
    stairs = np.repeat(np.cumsum(rng.uniform(1, 2, 120)), 4)
    kept_times, kept = at_scrape_spacing(times, stairs)
    assert len(kept) == 120 and kept_times[-1] == times[-1] and np.array_equal(kept, stairs[3::4])
