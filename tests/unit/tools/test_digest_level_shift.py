"""The array-at-once level-shift scan picks exactly what a per-split `np.median` scan picks.

The oracle below is the digest's original scan, kept verbatim: every split scored with medians of its
own slices. The fast scan must agree bit for bit (split, baseline, scale, score) on both worlds'
series and on random series built to be awkward: ties, quantised steps, flat stretches, tiny runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from tests.data.worlds import generate as streaming_generator
from tools.demo_world import DEMO_WORLD_DIR
from tools.digest import DigestLimits
from tools.digest.level_shift import Floats, Shift, best_shift_among, robust_scale
from tools.digest.metrics import _samples
from tools.world import load_world

_MAGNITUDE_FLOOR = 0.001


def _oracle_scan(values: Floats, splits: range, floor: float) -> Shift | None:
    best: Shift | None = None
    for split in splits:
        before = values[:split]
        baseline = float(np.median(before))
        scale = robust_scale(before, baseline, floor)
        score = abs(float(np.median(values[split:])) - baseline) / scale
        if best is None or score > best.level_score:
            best = Shift(split=split, baseline=baseline, scale=scale, level_score=score)
    return best


def _oracle_robust_scale(segment: Floats, center: float, floor: float) -> float:
    deviations = np.abs(segment - center)
    spread = float(np.median(deviations)) * 1.4826
    if spread == 0.0:
        spread = float(np.mean(deviations)) * 1.2533
    return max(spread, 0.01 * abs(center), floor, 1e-12)


def _digest_ranges(n: int, limits: DigestLimits, floor: float, values: Floats) -> Iterator[range]:
    """The ranges the digest scans for a series: the coarse grid, then around its winner."""
    first = max(math.ceil(limits.min_baseline_share * n), 6)
    last = n - max(math.ceil(limits.min_recent_share * n), 3)
    if first > last:
        return
    stride = max(1, n // 120)
    coarse = range(first, last + 1, stride)
    yield coarse
    winner = _oracle_scan(values, coarse, floor)
    assert winner is not None
    yield range(max(first, winner.split - stride), min(last, winner.split + stride) + 1)
    yield range(winner.split, winner.split + 1)


def _assert_same(values: Floats, splits: range) -> None:
    floor = _MAGNITUDE_FLOOR * float(np.max(np.abs(values))) if len(values) else 0.0
    assert best_shift_among(values, splits, floor) == _oracle_scan(values, splits, floor), (
        f"n={len(values)} splits={splits}"
    )


@pytest.mark.parametrize("world_dir", [DEMO_WORLD_DIR, Path(streaming_generator.WORLD_DIR)])
def test_world_series_scan_exactly_as_the_per_split_scan(world_dir: Path) -> None:
    world = load_world(world_dir)
    limits = DigestLimits()
    checked = 0
    for series in world.series:
        _, values = _samples([list(p) for p in series.samples], now=world.now)
        if len(values) < limits.min_samples:
            continue
        floor = _MAGNITUDE_FLOOR * float(np.max(np.abs(values)))
        for splits in _digest_ranges(len(values), limits, floor, values):
            _assert_same(values, splits)
            checked += 1
    assert checked >= 3 * 10  # three ranges for each of at least ten series


def _awkward_series(rng: np.random.Generator, n: int, kind: int) -> Floats:
    if kind == 0:  # noisy level with a step
        values = rng.normal(100.0, 5.0, n)
        values[int(n * 0.8) :] += 40.0
    elif kind == 1:  # small integers: ties everywhere, MAD often 0
        values = rng.integers(0, 3, n).astype(np.float64)
    elif kind == 2:  # flat, then one blip, then flat at another level
        values = np.full(n, 7.0)
        values[n // 2] = 9.0
        values[int(n * 0.9) :] = 20.0
    elif kind == 3:  # two values only, in runs
        values = np.repeat(rng.choice([1.0, 2.0], size=n // 4 + 1), 4)[:n]
    elif kind == 4:  # rounded noise: many equal values around the median
        values = np.round(rng.normal(0.0, 1.0, n), 1)
    elif kind == 5:  # values whose midpoints do not round evenly
        values = rng.choice([0.1, 0.2, 0.3, 1e-9, 1 / 3], size=n)
    else:  # constant
        values = np.zeros(n)
    return values.astype(np.float64)


@pytest.mark.parametrize("kind", range(7))
def test_awkward_series_scan_exactly_as_the_per_split_scan(kind: int) -> None:
    rng = np.random.default_rng(1000 + kind)
    for n in (2, 3, 4, 5, 12, 13, 40, 97, 250, 481):
        for _ in range(3):
            values = _awkward_series(rng, n, kind)
            _assert_same(values, range(1, n))  # every split, down to one-sample segments
            _assert_same(values, range(max(1, n // 3), n, max(1, n // 50)))
            _assert_same(values, range(n - 1, n))
    _assert_same(np.zeros(5), range(3, 3))  # no split: nothing to pick


def test_robust_scale_is_the_original_scale() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        segment = np.round(rng.normal(10.0, 2.0, int(rng.integers(1, 60))), 0)
        center = float(np.median(segment))
        assert robust_scale(segment, center, 0.01) == _oracle_robust_scale(segment, center, 0.01)


def test_samples_are_read_in_time_order_with_bad_pairs_dropped() -> None:
    now = datetime.fromtimestamp(100.0).astimezone()
    raw = [[30, "3.5"], [10, 1], ["x", 2], [20, float("nan")], [200, 9], [10, 0.5], [40]]
    times, values = _samples(raw, now=now)
    assert times.tolist() == [10.0, 10.0, 30.0]
    assert values.tolist() == [0.5, 1.0, 3.5]


def test_numeric_samples_read_as_an_array_match_reading_pair_by_pair() -> None:
    rng = np.random.default_rng(11)
    now = datetime.fromtimestamp(1_000.0).astimezone()
    for _ in range(20):
        times = rng.choice([900.0, 950.0, 999.0, 1_000.0, 1_001.0, float("inf")], size=60)
        values = rng.choice([0.0, -0.0, 1.5, 2.0, float("nan"), float("-inf")], size=60)
        raw = [[t, v] for t, v in zip(times.tolist(), values.tolist(), strict=True)]
        pairs = sorted((t, v) for t, v in raw if math.isfinite(t) and math.isfinite(v) and t <= 1_000.0)
        got_times, got_values = _samples(raw, now=now)
        assert got_times.tolist() == [p[0] for p in pairs]
        assert got_values.tolist() == [p[1] for p in pairs]
        assert [math.copysign(1, v) for v in got_values] == [math.copysign(1, p[1]) for p in pairs]
    ints_and_bools = [[3, True], [1, 2], [2, False]]
    assert [a.tolist() for a in _samples(ints_and_bools, now=now)] == [[1.0, 2.0, 3.0], [2.0, 0.0, 1.0]]
