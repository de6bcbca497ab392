"""Metric anomalies of one evidence item: what each series shows, then the facts ranked.

Each series gets at most one fact: a restart (a process's age or start time that began again, a count
fallen back near zero), else its shift (`series_shift`). Cumulative counters are scanned as per-second
rates, or as their increase when they rarely move (`counters`), and named `rate(metric)` or
`increase(metric)` in their facts. A system all of whose series stopped reporting well before now went
silent; moves of one metric of one system that cancel out between its members at one moment are marked
`moved`. `rank_anomalies` orders the facts, highest score first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from tools.digest.cadence import at_scrape_spacing
from tools.digest.counters import (
    cumulative_increase,
    increase_metric,
    is_counter,
    per_second_rates,
    rate_metric,
)
from tools.digest.labels import iso_from_unix, parse_instant, service_of
from tools.digest.level_shift import Floats
from tools.digest.limits import DigestLimits
from tools.digest.restarts import counter_restart, restart_of
from tools.digest.series_shift import ratio, rounded, series_anomaly
from tools.facts import MetricAnomaly

# A counter that had done this share of its counting this long before the newest sample stopped:
# its rise is over.
_SETTLED_SHARE = 0.95
# A counter read by its increase moves on at most this share of its steps (restarts, failovers).
_RARE_SHARE = 0.5
_COUNTING_STOPPED_S = 900.0
# A series whose newest sample is this much older than now (and this many of its own steps) went silent.
_SILENT_AFTER_S = 600.0
_SILENT_STEPS = 10
# A scrape's own status: whether the telemetry came, not how the system is.
SCRAPE_STATUS = re.compile(r"^(?:up|scrape_[a-z_]+)$")
Reporter = tuple[str | None, str]  # a system and the job whose series of it still come
# Moves of members that cancel out to within this share, begun within this long of each other.
_BALANCED = 0.25
_TOGETHER_S = 300.0


def anomalies_from(
    evidence_id: str, data: Mapping[str, Any], *, now: datetime, limits: DigestLimits
) -> list[MetricAnomaly]:
    """Every significant shift in the range-query series of one evidence item."""
    return read_series(evidence_id, data, now=now, limits=limits)[0]


def read_series(
    evidence_id: str, data: Mapping[str, Any], *, now: datetime, limits: DigestLimits
) -> tuple[list[MetricAnomaly], frozenset[Reporter]]:
    """The anomalies of one evidence item and who still reports in it: the (system, job) of every
    series that did not go silent, a scrape's own status aside (it reports when the system cannot)."""
    readings: list[_Reading] = []
    for raw in data.get("series") or []:
        if not isinstance(raw, Mapping) or "samples" not in raw:
            continue  # discovery results carry no samples
        labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
        metric = str(raw.get("metric") or labels.get("__name__") or "")
        times, values = at_scrape_spacing(*_samples(raw.get("samples") or [], now=now))
        silent = None if metric.startswith("ALERTS") else _silent(times, values, now=now, limits=limits)
        readings.append(
            _Reading(
                labels,
                service_of(labels, limits.identity),
                metric,
                *_read(metric, times, values, limits),
                silent,
            )
        )
    # A system stopped reporting when every series of it in the read did (a pod replaced by another
    # of the same workload leaves one series ending and one beginning: no silence).
    heard = {r.service for r in readings if r.silent is None}
    found: list[MetricAnomaly] = []
    for r in readings:
        if r.silent is not None and r.service not in heard:
            metric, fact = r.metric, r.silent
        elif r.anomaly is not None:
            metric, fact = r.read_as, r.anomaly
        else:
            continue
        found.append(
            MetricAnomaly(evidence_id=evidence_id, metric=metric, labels=r.labels, service=r.service, **fact)
        )
    reporting = frozenset(
        (r.service, r.labels.get("job", ""))
        for r in readings
        if r.silent is None and r.service and not SCRAPE_STATUS.match(r.metric)
    )
    return _moved_between_members(found), reporting


def replaced_silences(anomalies: Sequence[MetricAnomaly], reporting: set[Reporter]) -> list[MetricAnomaly]:
    """The anomalies without silences of a system whose same job still reports in another read: pods
    replaced by a rollout leave series only the old ones ever had (kube-state-metrics' last
    termination reason), which stop with them while the workload's other series go on."""
    return [
        a for a in anomalies if a.event != "silent" or (a.service, a.labels.get("job", "")) not in reporting
    ]


@dataclass(frozen=True, slots=True)
class _Reading:
    labels: dict[str, str]
    service: str | None
    metric: str  # as the series is named
    read_as: str  # as its fact names it (`rate(x)` for a counter)
    anomaly: dict[str, Any] | None
    silent: dict[str, Any] | None


def _read(
    metric: str, times: Floats, values: Floats, limits: DigestLimits
) -> tuple[str, dict[str, Any] | None]:
    """The series' fact and the name it goes by: a restart, else a counter's rate or increase, else
    a level shift."""
    counter = is_counter(metric, values)
    restart = _restart_anomaly(times, values, counter=counter, limits=limits)
    if restart is not None:
        return metric, restart
    if counter:
        return _counter_anomaly(metric, times, values, limits=limits)
    return metric, series_anomaly(times, values, limits=limits)


def _moved_between_members(found: list[MetricAnomaly]) -> list[MetricAnomaly]:
    """Moves of one metric of one system that cancel out at one moment: what one member lost another
    gained (a failover's traffic, clients and replicas changing masters). The system as a whole did
    not move; each member's series did, for good: marked `moved`, a change like a restart."""
    groups: dict[tuple[str, str | None], list[MetricAnomaly]] = {}
    for anomaly in found:
        if anomaly.event is None:
            groups.setdefault((anomaly.metric, anomaly.service), []).append(anomaly)
    moved: set[int] = set()
    for members in groups.values():
        ups = [a for a in members if a.direction == "up"]
        downs = [a for a in members if a.direction == "down"]
        if not ups or not downs or not _together(members):
            continue
        gained = sum(a.recent - a.baseline for a in ups)
        lost = sum(a.baseline - a.recent for a in downs)
        if gained > 0 and lost > 0 and abs(gained - lost) <= _BALANCED * max(gained, lost):
            moved |= {id(a) for a in members}
    return [replace(a, event="moved") if id(a) in moved else a for a in found]


def _together(members: Sequence[MetricAnomaly]) -> bool:
    times = [t.timestamp() for a in members if (t := parse_instant(a.change_at)) is not None]
    return len(times) == len(members) and max(times) - min(times) <= _TOGETHER_S


def _silent(times: Floats, values: Floats, *, now: datetime, limits: DigestLimits) -> dict[str, Any] | None:
    """A series that reported regularly and then stopped well before now: its target went away (a
    process that died, a machine that is down), which no value of it can show."""
    if len(times) < limits.min_samples:
        return None
    spacing = float(np.median(np.diff(times)))
    gap = now.timestamp() - float(times[-1])
    if gap < max(_SILENT_AFTER_S, _SILENT_STEPS * spacing):
        return None
    last = float(values[-1])
    return {
        "baseline": rounded(float(np.median(values))),
        "recent": rounded(last),
        "peak": rounded(last),
        "change_at": iso_from_unix(float(times[-1]) + spacing),
        "direction": "down",
        "ratio": 0.0,
        "score": limits.max_score,
        "event": "silent",
    }


def _restart_anomaly(
    times: Floats, values: Floats, *, counter: bool, limits: DigestLimits
) -> dict[str, Any] | None:
    """A series of a process's age or start time that shows it started again: the restart is the
    fact (an age read as a counter has a flat rate; a start time's jump is a tiny share of it). So is
    a count that fell back near zero in a series not read as a counter (its drop is no level)."""
    restart = restart_of(times, values)
    if restart is None and not counter:
        restart = counter_restart(times, values)
    if restart is None:
        return None
    recent = float(values[-1])
    return {
        "baseline": rounded(restart.before),
        "recent": rounded(recent),
        "peak": rounded(float(np.max(values[restart.split :]))),
        "change_at": iso_from_unix(restart.at),
        "direction": "up" if restart.rising else "down",
        "ratio": rounded(ratio(recent, restart.before)),
        "score": limits.max_score,
        "event": "restart",
    }


def _counter_anomaly(
    metric: str, times: Floats, values: Floats, *, limits: DigestLimits
) -> tuple[str, dict[str, Any] | None]:
    """A counter's anomaly read from its rate, else from its increase.

    The values of the fact are then rates (or increases), and its metric says which, so every
    number in it stays checkable against the digest.
    """
    anomaly = series_anomaly(*per_second_rates(times, values), limits=limits)
    if anomaly is not None:
        return rate_metric(metric), anomaly
    grown = cumulative_increase(values)
    if np.count_nonzero(np.diff(grown) > 0) > _RARE_SHARE * (len(grown) - 1):
        # A counter that counts all the time ramps by its increase: only its rate says anything.
        return increase_metric(metric), None
    # An increase stays up forever once counted: a counter that had done nearly all its counting a
    # while ago (a burst of failures that ended, a trickle since) is a past event, not a current shift.
    total = float(grown[-1])
    if total > 0:
        settled = int(np.argmax(grown >= _SETTLED_SHARE * total))
        if times[-1] - times[settled] > _COUNTING_STOPPED_S:
            return increase_metric(metric), None
    anomaly = series_anomaly(times, grown, limits=limits)
    if anomaly is not None and _counted_before(times, grown, anomaly):
        return increase_metric(metric), None  # a trickle all along ramps its increase: nothing began
    return increase_metric(metric), anomaly


def _counted_before(times: Floats, grown: Floats, anomaly: Mapping[str, Any]) -> bool:
    """Whether a rarely-moving counter counted before its increase "changed" about as often as after
    (per step, at least a third as often; more than once): then the change is its usual trickle, not
    a start."""
    moment = parse_instant(anomaly.get("change_at"))
    if moment is None:
        return False
    rises = np.diff(grown) > 0
    split = int(np.searchsorted(times[1:], moment.timestamp()))
    before, after = int(np.count_nonzero(rises[:split])), int(np.count_nonzero(rises[split:]))
    if before <= 1:
        return False
    return before / max(split, 1) * 3 >= after / max(len(rises) - split, 1)


def rank_anomalies(
    anomalies: Sequence[MetricAnomaly], *, limit: int, per_metric_service: int
) -> list[MetricAnomaly]:
    """Highest score first; ties go to the earlier change (more likely a cause than an effect)."""
    ordered = sorted(
        anomalies,
        key=lambda a: (-a.score, a.change_at or "~", a.metric, sorted(a.labels.items())),
    )
    kept: list[MetricAnomaly] = []
    per_key: dict[tuple[str, str | None], int] = {}
    for anomaly in ordered:
        key = (anomaly.metric, anomaly.service)
        if per_key.get(key, 0) < per_metric_service:
            per_key[key] = per_key.get(key, 0) + 1
            kept.append(anomaly)
    return kept[:limit]


def _samples(raw: Sequence[Any], *, now: datetime) -> tuple[Floats, Floats]:
    """Finite (time, value) pairs up to `now`, time-ordered; unreadable pairs are dropped."""
    cutoff = now.timestamp()
    numeric = _numeric_pairs(raw)
    if numeric is not None:  # the usual shape: read as one array instead of pair by pair
        times, values = numeric[:, 0], numeric[:, 1]
        keep = np.isfinite(times) & np.isfinite(values) & (times <= cutoff)
        times, values = times[keep], values[keep]
        order = np.lexsort((values, times))  # by time, then value: as sorting the pairs does
        return times[order], values[order]
    pairs: list[tuple[float, float]] = []
    for sample in raw:
        try:
            ts, value = float(sample[0]), float(sample[1])
        except (TypeError, ValueError, IndexError):
            continue
        if math.isfinite(ts) and math.isfinite(value) and ts <= cutoff:
            pairs.append((ts, value))
    pairs.sort()
    times = np.array([p[0] for p in pairs], dtype=np.float64)
    values = np.array([p[1] for p in pairs], dtype=np.float64)
    return times, values


def _numeric_pairs(raw: Sequence[Any]) -> Floats | None:
    """`raw` as an (n, 2+) float array when it is all plain numbers; None for anything else."""
    try:
        array = np.asarray(raw)
    except ValueError:  # ragged
        return None
    if array.ndim != 2 or array.shape[1] < 2 or array.dtype.kind not in "biuf":
        return None  # strings, objects, missing values: read pair by pair
    return array[:, :2].astype(np.float64)
