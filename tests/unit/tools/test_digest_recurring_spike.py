"""A level the series has visited before, for as long, is within its own normal variability."""

from __future__ import annotations

from tests.unit.tools.test_digest_metrics import GRID, _anomalies, _series


def _cpu(spikes_before: bool) -> list[float]:
    """Six hours around 31% CPU; a batch lifts it to 70% for 8 minutes every 30 (or only at the end)."""
    size = len(GRID)
    values = [31.0 + (n % 5) * 0.5 for n in range(size)]
    starts = range(20, size - 10, 30) if spikes_before else ()
    for start in [*starts, size - 8]:
        for n in range(start, min(start + 8, size)):
            values[n] = 70.0
    return values


def test_a_spike_the_series_makes_every_half_hour_is_not_an_anomaly() -> None:
    assert _anomalies(_series(_cpu(spikes_before=True), metric="system_cpu_user")) == []


def test_the_same_jump_never_seen_before_is_an_anomaly() -> None:
    found = _anomalies(_series(_cpu(spikes_before=False), metric="system_cpu_user"))
    assert [(a.direction, a.recent) for a in found] == [("up", 70.0)]


def _queue(bursts_before: int | None) -> list[float]:
    """A queue that fills to a few thousand and drains in a sawtooth every 30 minutes: all six
    hours (None), or only the last `bursts_before + 1` bursts with the time before flat."""
    size = len(GRID)
    values = [3.0] * size
    first = 5 if bursts_before is None else size - 10 - 30 * bursts_before
    starts = [*range(first, size - 10, 30), size - 10]
    for start in starts:
        for n in range(start, min(start + 15, size)):
            values[n] = 4000.0 - 250.0 * (n - start)
    return values


def test_a_queue_that_fills_and_drains_on_its_usual_rhythm_is_no_shift() -> None:
    """With the split before the last bursts, the recent part's median sits high; the baseline
    spent a like share of its time that high, so the rhythm is the series' own."""
    assert _anomalies(_series(_queue(bursts_before=None), metric="queue_enqueued_jobs")) == []


def test_bursts_that_only_began_recently_are_a_shift() -> None:
    found = _anomalies(_series(_queue(bursts_before=2), metric="queue_enqueued_jobs"))
    assert found and found[0].direction == "up"
