"""The level-shift scan: for many candidate splits at once, baseline median, MAD scale and shift.

A split cuts a series into a baseline (before) and a recent segment (after, to the end); its score is
how far the recent median sits from the baseline median, in baseline MADs. Scoring each split with
`np.median` costs three selections per split; here every split is scored with a few array passes:

- one argsort of the series gives, for each split, its baseline and recent segments already in order
  (a mask over the sorted positions keeps the samples before, or from, the split), so a median is
  two look-ups;
- the MAD is the median of |x - baseline| over the baseline. Over the sorted segment those
  deviations fall then rise, so the q-th smallest of them is the narrowest window of q + 1
  neighbours measured at its wider end, found by a search run for all splits at once.

Every number is the same float `np.median` and `np.mean` would give on the segment (the same
elements, the same final arithmetic), so the chosen split is exactly the one a per-split scan picks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

MAD_TO_SIGMA = 1.4826
MEAN_AD_TO_SIGMA = 1.2533
# A baseline that is perfectly flat has MAD 0; these floors keep the z-score finite and
# scale-aware (1% of the level, or the caller's magnitude floor).
RELATIVE_FLOOR = 0.01
TINY = 1e-12
# Window starts probed at once per row in the first pass of the MAD search.
_PROBES = 32


@dataclass(frozen=True, slots=True)
class Shift:
    """The best split of a series: where, the baseline's median and scale, and its score."""

    split: int
    baseline: float
    scale: float
    level_score: float


def robust_scale(segment: Floats, center: float, floor: float) -> float:
    """MAD as a sigma estimate around `center`, never below the relative, magnitude or tiny floors."""
    deviations = np.abs(segment - center)
    spread = float(np.median(deviations)) * MAD_TO_SIGMA
    if spread == 0.0:
        # Quantised series (counts, pool sizes) often have MAD 0 while still varying a little;
        # the mean absolute deviation keeps one step of such a series from reading as many MADs.
        spread = float(np.mean(deviations)) * MEAN_AD_TO_SIGMA
    return max(spread, RELATIVE_FLOOR * abs(center), floor, TINY)


def best_shift_among(values: Floats, splits: range, floor: float) -> Shift | None:
    """The highest-scoring split of `splits` (the earliest on a tie); None when there is none."""
    cuts = np.arange(splits.start, splits.stop, splits.step, dtype=np.int64)
    if not len(cuts):
        return None
    n = len(values)
    order = np.argsort(values, kind="stable")
    before = order[None, :] < cuts[:, None]  # row k: which sorted samples come before cut k
    ordered = np.tile(values[order], len(cuts))
    head = np.extract(before, ordered)  # every baseline, ascending, laid end to end
    tail = np.extract(~before, ordered)  # every recent segment, likewise
    head_len, tail_len = cuts, n - cuts
    head_at = np.cumsum(head_len) - head_len
    baseline = _medians(head, head_at, head_len)
    recent = _medians(tail, np.cumsum(tail_len) - tail_len, tail_len)
    spread = _mad(head, head_at, head_len, baseline) * MAD_TO_SIGMA
    _mean_deviation_where_flat(spread, values, cuts, baseline, head, head_at)
    scale = np.maximum(np.maximum(spread, RELATIVE_FLOOR * np.abs(baseline)), max(floor, TINY))
    scores = np.abs(recent - baseline) / scale
    best = int(np.argmax(scores))
    return Shift(
        split=int(cuts[best]),
        baseline=float(baseline[best]),
        scale=float(scale[best]),
        level_score=float(scores[best]),
    )


def _medians(flat: Floats, starts: Ints, lengths: Ints) -> Floats:
    """Medians of ascending runs laid end to end: the middle one, or the mean of the middle two."""
    low = flat[starts + (lengths - 1) // 2]
    high = flat[starts + lengths // 2]
    middle: Floats = np.where(lengths % 2 == 1, low, (low + high) / 2)
    return middle


def _mad(head: Floats, starts: Ints, lengths: Ints, centers: Floats) -> Floats:
    """Median of |x - center| over each ascending run: its middle one, or middle two, by rank."""
    rows = len(lengths)
    found = _smallest_deviation(
        head,
        np.concatenate([starts, starts]),
        np.concatenate([lengths, lengths]),
        np.concatenate([(lengths - 1) // 2, lengths // 2]),
        np.concatenate([centers, centers]),
    )
    low, high = found[:rows], found[rows:]
    middle: Floats = np.where(lengths % 2 == 1, low, (low + high) / 2)
    return middle


def _smallest_deviation(head: Floats, starts: Ints, lengths: Ints, rank: Ints, centers: Floats) -> Floats:
    """The rank-th smallest (0-based) |x - center| of each ascending run.

    Deviations over an ascending run fall, then rise, so the rank + 1 smallest are neighbours: a
    window [a, a + rank] whose wider end is the answer. A window that ends below the center, or
    whose left end is the wider, is beaten by some later window (call it open); any other window
    (closed) by every earlier one. Windows are open, then closed, as `a` grows; the best is on
    either side of the first closed one. That one is found in two passes: every step-th window,
    then each window between the last open probe and the first closed one.
    """
    windows = lengths - rank
    step = -(-windows // _PROBES)  # ceil: _PROBES probes a step apart cover every window
    probes = step[:, None] * np.arange(_PROBES)[None, :]
    opened = _count_open(head, starts, rank, centers, probes, probes < windows[:, None])
    first = np.where(opened > 0, step * (opened - 1) + 1, 0)  # past the last open probe
    offsets = np.arange(int(step.max()))[None, :]
    between = first[:, None] + offsets
    valid = (between < windows[:, None]) & (offsets < step[:, None]) & (opened > 0)[:, None]
    closed = first + _count_open(head, starts, rank, centers, between, valid)
    at_closed = np.where(
        closed < windows, _wider_end(head, starts, rank, centers, np.minimum(closed, windows - 1)), np.inf
    )
    before_closed = np.where(closed > 0, _wider_end(head, starts, rank, centers, closed - 1), np.inf)
    smallest: Floats = np.minimum(at_closed, before_closed)
    return smallest


def _count_open(
    head: Floats, starts: Ints, rank: Ints, centers: Floats, a: Ints, valid: npt.NDArray[np.bool_]
) -> Ints:
    """Per row, how many of the (ascending, valid) window starts `a` are open windows."""
    at = starts[:, None] + np.where(valid, a, 0)
    left, right = head[at], head[at + rank[:, None]]
    center = centers[:, None]
    closed = (right >= center) & (np.abs(left - center) <= np.abs(right - center))
    count: Ints = np.count_nonzero(valid & ~closed, axis=1)
    return count


def _wider_end(head: Floats, starts: Ints, rank: Ints, centers: Floats, a: Ints) -> Floats:
    """The larger deviation at the two ends of window [a, a + rank] (a negative `a` read as 0)."""
    at = starts + np.maximum(a, 0)
    wider: Floats = np.maximum(np.abs(head[at] - centers), np.abs(head[at + rank] - centers))
    return wider


def _mean_deviation_where_flat(
    spread: Floats, values: Floats, cuts: Ints, baseline: Floats, head: Floats, head_at: Ints
) -> None:
    """Replace a zero MAD by the scaled mean absolute deviation, as `robust_scale` does.

    The mean is taken with `np.mean` over the baseline in its own order, so it sums exactly as a
    per-split scan would; a baseline with no deviation at all (both ends at the center) has mean 0.
    """
    ends = np.maximum(np.abs(head[head_at] - baseline), np.abs(head[head_at + cuts - 1] - baseline))
    for k in np.flatnonzero((spread == 0.0) & (ends > 0.0)):
        segment = values[: int(cuts[k])]
        spread[k] = float(np.mean(np.abs(segment - float(baseline[k])))) * MEAN_AD_TO_SIGMA
