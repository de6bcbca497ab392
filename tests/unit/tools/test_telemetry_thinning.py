"""Range queries fit their byte cap by thinning every series, not by dropping series (services)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tools.base import Series, SeriesRef, SourceHealth, Sources, TimeWindow
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.toolbox import Toolbox
from tools.toolbox.thinning import extremes_by_bucket

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
START = int(NOW.timestamp()) - 7_200


class Metrics:
    def __init__(self, series: list[Series]) -> None:
        self.series = series

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    async def now(self) -> datetime:
        return NOW

    async def list_series(self, *, match: str | None, window: TimeWindow, limit: int) -> list[SeriesRef]:
        return []

    async def query_range(
        self, *, promql: str, window: TimeWindow, step_s: int, max_series: int
    ) -> list[Series]:
        return self.series

    async def query_instant(self, *, promql: str, at: datetime, max_series: int) -> list[Series]:
        return []


def _series(service: str, spike_at: int) -> Series:
    samples = [(float(START + 15 * n), 10.0 + (n % 7) * 0.123456789) for n in range(481)]
    samples[spike_at] = (samples[spike_at][0], 999.5)
    return Series("latency_seconds", {"service": service, "instance": f"{service}-0"}, samples)


async def _query(series: list[Series], **limits: Any) -> dict[str, Any]:
    cache = EvidenceCache(ttl_s=0.0, capacity=4)
    toolbox = Toolbox(Sources(metrics=Metrics(series)), ToolLimits(**limits), cache)
    evidence = await toolbox.call(
        "query_promql", {"promql": "latency_seconds"}, RunEvidence(budget_bytes=10**7)
    )
    return {
        "data": evidence.data,
        "truncated": evidence.truncated,
        "bytes": evidence.bytes,
        "summary": evidence.summary,
    }


async def test_every_series_is_kept_thinned_with_its_peak_and_newest_point() -> None:
    series = [_series(f"svc-{n}", spike_at=37 * n + 5) for n in range(10)]
    answer = await _query(series)
    kept = answer["data"]["series"]
    assert [item["labels"]["service"] for item in kept] == [f"svc-{n}" for n in range(10)]
    assert answer["truncated"] and answer["bytes"] <= ToolLimits().max_result_bytes
    for item, original in zip(kept, series, strict=True):
        times = [t for t, _ in item["samples"]]
        assert 60 <= len(times) < 481 and times == sorted(times)
        assert max(v for _, v in item["samples"]) == 999.5  # the peak survives thinning
        assert item["samples"][-1] == list(original.samples[-1])  # so does the newest point
    # The summary reads the unthinned figures of each series it names.
    for original in series[:5]:
        values = [v for _, v in original.samples]
        expected = f"last {values[-1]:.4g}, min {min(values):.4g}, max {max(values):.4g}"
        assert f"service={original.labels['service']}}} {expected}" in answer["summary"]


async def test_a_small_result_is_not_thinned() -> None:
    answer = await _query([_series("checkout", spike_at=100)])
    assert len(answer["data"]["series"][0]["samples"]) == 481
    assert not answer["truncated"]


async def test_points_without_a_reading_are_dropped_and_the_summary_reads_the_rest() -> None:
    gappy = _series("checkout", spike_at=100)
    holes = {3: math.nan, 50: math.inf, 480: -math.inf}
    samples = [(t, holes.get(n, v)) for n, (t, v) in enumerate(gappy.samples)]
    cache = EvidenceCache(ttl_s=0.0, capacity=4)
    toolbox = Toolbox(
        Sources(metrics=Metrics([Series(gappy.metric, gappy.labels, samples)])), ToolLimits(), cache
    )
    evidence = await toolbox.call(
        "query_promql", {"promql": "latency_seconds"}, RunEvidence(budget_bytes=10**7)
    )
    kept = evidence.data["series"][0]["samples"]
    assert len(kept) == 478 and all(math.isfinite(v) for _, v in kept)
    assert kept[-1][0] == samples[479][0]  # the newest point with a reading
    assert "max 999.5" in evidence.summary and f"last {samples[479][1]:.4g}" in evidence.summary


def _reference_extremes(samples: list[tuple[float, float]], at_most: int) -> list[tuple[float, float]]:
    """The definition: per equal time bucket, the first lowest and first highest point, in time order."""
    buckets = max(1, at_most // 2)
    size = len(samples) / buckets
    kept: list[tuple[float, float]] = []
    for n in range(buckets):
        bucket = samples[int(n * size) : int((n + 1) * size)]
        if bucket:
            low, high = min(bucket, key=lambda p: p[1]), max(bucket, key=lambda p: p[1])
            kept += [low] if low is high else sorted([low, high])
    return kept if kept[-1] is samples[-1] else [*kept, samples[-1]]


_VALUES = st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, 1e9]) | st.floats(-1e6, 1e6)


@st.composite
def _thinning_cases(draw: st.DrawFn) -> tuple[list[list[float]], int]:
    """A bucket budget, then series that each have more points than it (thinning is asked for then)."""
    at_most = draw(st.integers(1, 120))
    series = st.lists(_VALUES, min_size=at_most + 1, max_size=at_most + 200)
    return draw(st.lists(series, min_size=1, max_size=6)), at_most


@given(_thinning_cases())
# 61 points in 7 buckets: int(7 * (61 / 7)) is 60, so the newest point falls in no bucket.
@example(([[float(n % 9) for n in range(61)], [1.0] * 30], 14))
def test_bucket_extremes_match_their_definition(case: tuple[list[list[float]], int]) -> None:
    series, at_most = case
    samples = [[(float(START + 15 * n), value) for n, value in enumerate(values)] for values in series]
    thinned = extremes_by_bucket(samples, at_most)
    assert len(thinned) == len(samples)
    for kept, original in zip(thinned, samples, strict=True):
        expected = _reference_extremes(original, at_most)
        assert [id(p) for p in kept] == [id(p) for p in expected]


def test_series_of_different_lengths_are_thinned_independently() -> None:
    # A short series beside a long one: buckets never straddle two series.
    series = [
        [(float(START + 15 * n), float(n % 5)) for n in range(300)],
        [(float(START + 15 * n), float(-n)) for n in range(7)],
        [(float(START + 15 * n), float(n % 11)) for n in range(250)],  # its own points, not a copy
    ]
    thinned = extremes_by_bucket(series, 6)
    assert [[id(p) for p in kept] for kept in thinned] == [
        [id(p) for p in _reference_extremes(original, 6)] for original in series
    ]
