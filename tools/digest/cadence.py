"""A read finer than the scrape, brought back to the scrape's own spacing.

A range query stepped at 15 s over a series scraped every 60 s returns each scraped value four
times: Prometheus answers every step with the newest sample inside its lookback. A counter read
that way rises on one step in four, so its per-step rate is zero, zero, zero, then four times the
real rate, and no shift test can read it (a 400-fold rise of a disk's fsync time went unseen). A
30 s or 60 s scrape is the common default; only the read's step is ours. So when a series' values
repeat in regular runs, every run but its last sample is dropped before anything is read.
"""

from __future__ import annotations

import numpy as np

from tools.digest.level_shift import Floats

# The runs must be many and alike: a gauge that holds a value now and then is not a staircase.
_MIN_RUNS = 8
_ALIKE_SHARE = 0.7


def at_scrape_spacing(times: Floats, values: Floats) -> tuple[Floats, Floats]:
    """`times` and `values` with the repeats of a finer-than-scrape read dropped: every run-length'th
    sample counted back from the newest (so the newest stays and silence is judged as before); the
    series unchanged when its values do not repeat in regular runs of two or more."""
    if len(values) < 3:
        return times, values
    starts = np.flatnonzero(values[1:] != values[:-1]) + 1  # where each new value begins
    runs = np.diff(starts)
    if len(runs) < _MIN_RUNS:
        return times, values
    every = int(np.median(runs))
    if every < 2 or np.count_nonzero(np.abs(runs - every) <= 1) < _ALIKE_SHARE * len(runs):
        return times, values
    keep = np.arange(len(values) - 1, -1, -every)[::-1]
    return times[keep], values[keep]
