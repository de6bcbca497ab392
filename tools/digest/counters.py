"""Cumulative counters: recognised by name and shape, and read as per-second rates.

A counter's raw level only ever grows, so a level-shift scan on it reports its age, not an incident.
Its rate (Prometheus `rate()` semantics: increases per second over the sample spacing, a reset
counting from zero) is what moves when something breaks, so counters are scanned as rates.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tools.digest.level_shift import TINY, Floats

COUNTER_SUFFIXES = ("_total", "_count", "_sum", "_bucket")
# A drop to at most this share of the previous value is a restart of the counting process.
_RESET_SHARE = 0.1
# Counters restart now and then, not every few samples: more resets than this is a gauge.
_MAX_RESET_SHARE = 0.05
# A handful of small decreases (a lagging scrape) are tolerated; a noisy gauge has many more.
_MAX_GLITCH_SHARE = 0.02
# A named counter must count something (a gauge stepping once is not a counter), and an
# unnamed series must rise on most steps before it is read as one.
_NAMED_MIN_RISES = 3
_UNNAMED_RISE_SHARE = 0.8
_SPARSE_MIN_STEPS = 30
# A step under twice as fine as the scrape leaves at least this share of steps moving.
_STAIR_MOVED_SHARE = 0.4


def rate_metric(metric: str) -> str:
    """How a counter's name is shown once its values are per-second rates: `rate(name)`."""
    return f"rate({metric})" if metric else "rate"


def increase_metric(metric: str) -> str:
    """How a counter's name is shown once its values are its increase since the window began."""
    return f"increase({metric})" if metric else "increase"


def is_counter(metric: str, values: Floats) -> bool:
    """Whether a series is a cumulative counter: non-decreasing apart from resets, and either named
    like one (`_total`, `_count`, `_sum`, `_bucket`) or rising on most of its samples.

    The name alone is not trusted: gauges such as `pg_stat_activity_count` share the suffixes. A
    series a function already computed (`rate(x)`, `p99(x)`: its name is an expression) is never
    one: a rate that rises on most steps is a rate still, and reading it as a counter rates it twice.
    """
    if "(" in metric:
        return False
    steps = len(values) - 1
    if steps < 2 or float(np.min(values)) < 0:
        return False
    before, after = values[:-1], values[1:]
    falls = after < before
    resets = reset_steps(values)
    glitches = falls & ~resets
    if np.count_nonzero(resets) > _MAX_RESET_SHARE * steps:
        return False
    if np.count_nonzero(glitches) > _MAX_GLITCH_SHARE * steps:
        return False
    rises = int(np.count_nonzero(after > before))
    if metric.endswith(COUNTER_SUFFIXES):
        return rises >= _NAMED_MIN_RISES
    if rises >= _UNNAMED_RISE_SHARE * steps:
        return True
    # Read at a finer step than it was scraped (a 45 s step over a 60 s scrape), a count stands still
    # between scrapes: its rises are judged among the steps that moved, when most scrapes moved.
    moved = rises + int(np.count_nonzero(falls))
    if moved >= _STAIR_MOVED_SHARE * steps and rises >= _UNNAMED_RISE_SHARE * moved:
        return True
    # A count that only moves now and then (an exporter's `..._rq_5xx`, `..._connect_fail` without
    # the `_total` suffix): whole numbers that never fall over a long series and rose a few times.
    return (
        steps >= _SPARSE_MIN_STEPS
        and rises >= _NAMED_MIN_RISES
        and not np.count_nonzero(falls)
        and bool(np.all(values == np.round(values)))
    )


def reset_steps(values: Floats) -> npt.NDArray[np.bool_]:
    """Per step, whether the value fell back to a restart of its counting process (at most
    _RESET_SHARE of what it was): one definition for counters read as rates and for restarts."""
    before, after = values[:-1], values[1:]
    resets: npt.NDArray[np.bool_] = (after < before) & (after <= _RESET_SHARE * before)
    return resets


def per_second_rates(times: Floats, values: Floats) -> tuple[Floats, Floats]:
    """The counter's increase per second over each sample spacing, stamped at the later sample."""
    spacing = np.maximum(times[1:] - times[:-1], TINY)
    rates: Floats = _increases(values) / spacing
    return times[1:], rates


def cumulative_increase(values: Floats) -> Floats:
    """How much the counter has grown since the first sample, resets accounted for.

    A rarely-moving counter (container restarts) has a rate that is zero almost everywhere; its
    increase is the fact worth reading.
    """
    grown: Floats = np.concatenate([[0.0], np.cumsum(_increases(values))])
    return grown


def _increases(values: Floats) -> Floats:
    """Each step's increase: after a reset the new value (counted from zero); a small decrease
    that is not a reset counts as none, where Prometheus would invent a whole-counter spike."""
    increase = np.diff(values)
    steps: Floats = np.where(increase >= 0, increase, np.where(reset_steps(values), values[1:], 0.0))
    return steps
