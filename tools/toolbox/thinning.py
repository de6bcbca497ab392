"""Thinning range-query series to a byte budget while keeping their peaks, troughs and newest point.

The results of one evidence round land together and are thinned one after another on the event loop,
so the bucket extremes of every series of a result are found in one vectorised pass (numpy), not
bucket by bucket in Python (the measured gain is in bench/README.md).
"""

from __future__ import annotations

import json
from itertools import chain
from operator import itemgetter

import numpy as np
import numpy.typing as npt

Sample = tuple[float, float]

# Thinning never leaves a series fewer points than the digest needs to see a change.
MIN_POINTS = 60
_value = itemgetter(1)


def thin_to_fit(points: list[list[Sample]], max_bytes: int) -> bool:
    """Thin every series (time-ordered, finite values) evenly, in place, so that all samples fit in
    `max_bytes` of JSON; True if any was thinned.

    Keeping every series at a coarser resolution beats the byte cap dropping whole series (services)
    later, and a smaller result is cheaper to bound, redact and store on the event loop.
    """
    total = sum(len(samples) for samples in points)
    if not total:
        return False
    probe = [sample for samples in points for sample in samples[:8]]
    per_point = len(json.dumps(probe, separators=(",", ":"))) / len(probe) + 1
    if total * per_point <= max_bytes:
        return False
    per_series = max(MIN_POINTS, int(max_bytes / per_point / len(points)))
    crowded = [n for n, samples in enumerate(points) if len(samples) > per_series]
    for n, thinned in zip(crowded, extremes_by_bucket([points[n] for n in crowded], per_series), strict=True):
        points[n] = thinned
    return bool(crowded)


def extremes_by_bucket(series: list[list[Sample]], at_most: int) -> list[list[Sample]]:
    """Each series (time-ordered, finite values, more than `at_most` points) cut to about `at_most`
    points: the first lowest and first highest point of each equal time bucket, in time order, so
    peaks, troughs and the moment of a change survive; the newest point is always kept."""
    if not series:
        return []
    lengths = np.fromiter(map(len, series), dtype=np.intp, count=len(series))
    total = int(lengths.sum())
    flat = list(chain.from_iterable(series))
    values = np.fromiter(map(_value, flat), dtype=np.float64, count=total)
    buckets = max(1, at_most // 2)
    # Bucket k of a series of n points is [int(k * (n / buckets)), int((k + 1) * (n / buckets))), the
    # same float products as the per-series definition, shifted to flat positions.
    bounds = (np.arange(buckets + 1) * (lengths[:, None] / buckets)).astype(np.intp)
    bounds += (np.cumsum(lengths) - lengths)[:, None]
    nonempty = bounds[:, :-1] < bounds[:, 1:]
    starts, ends = bounds[:, :-1][nonempty], bounds[:, 1:][nonempty]
    series_of_bucket = np.nonzero(nonempty)[0]
    # Segments alternate: a bucket, then the gap before the next (empty, or a series' left-out tail).
    cuts = np.empty(2 * len(starts), dtype=np.intp)
    cuts[0::2], cuts[1::2] = starts, ends
    if cuts[-1] == total:
        cuts = cuts[:-1]
    lows, highs = _first_extremes(values, cuts)
    earlier, later = np.minimum(lows, highs), np.maximum(lows, highs)
    chosen = np.stack([earlier, later], axis=1).ravel()
    keep = np.ones(len(chosen), dtype=bool)
    keep[1::2] = later != earlier
    positions = chosen[keep].tolist()
    counts = np.bincount(np.repeat(series_of_bucket, 2)[keep], minlength=len(series)).tolist()
    thinned: list[list[Sample]] = []
    taken = 0
    for samples, count in zip(series, counts, strict=True):
        kept = [flat[p] for p in positions[taken : taken + count]]
        taken += count
        if kept[-1] is not samples[-1]:
            kept.append(samples[-1])
        thinned.append(kept)
    return thinned


def _first_extremes(
    values: npt.NDArray[np.float64], cuts: npt.NDArray[np.intp]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Flat positions of the first lowest and the first highest point of every bucket."""
    lengths = np.diff(cuts, append=len(values))
    at = np.arange(len(values))

    def first_holding(extreme: np.ufunc) -> npt.NDArray[np.intp]:
        per_segment = np.full(len(cuts), np.nan)  # gaps get NaN, which equals no value
        per_segment[0::2] = extreme.reduceat(values, cuts)[0::2]
        hits = np.where(values == np.repeat(per_segment, lengths), at, len(values))
        first: npt.NDArray[np.intp] = np.minimum.reduceat(hits, cuts)[0::2]
        return first

    return first_holding(np.minimum), first_holding(np.maximum)
