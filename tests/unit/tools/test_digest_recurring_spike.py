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
