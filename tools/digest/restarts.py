"""A process restart read from the shape of the series that state its age, whatever they are named.

Exporters publish how long a process has run (`redis_uptime_in_seconds`, `mysql_global_status_uptime`,
`memcached_uptime_seconds`, `elasticsearch_process_uptime`...) or when it started
(`process_start_time_seconds`, `pg_postmaster_start_time_seconds`, `node_boot_time_seconds`). No
list of those names is kept: an **age** grows by the time that passed (one second a second, or a
thousand milliseconds) and falls back near zero when the process starts again; a **start time** stays
put and jumps forward to about the moment it jumped. Either says when the process restarted, which a
rate or level scan cannot: an age read as a counter has a flat rate, and a start time's jump is a
tiny share of its value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tools.digest.counters import reset_steps
from tools.digest.level_shift import Floats

# An age grows at one of these rates per second of time passed (seconds, milliseconds).
_AGE_UNITS = (1.0, 1000.0)
_AGE_TOLERANCE = 0.03  # of the unit, over the span before the restart
_MIN_STEPS = 5  # before the restart: a shape needs samples to be told from noise
_MIN_AFTER = 2  # from the restart on: a restart of a minute ago is the one that matters most
_MIN_COUNTS = 5  # distinct values a count passes through before it restarts
_EPOCH_MIN = 1e9  # a start time is a unix time (2001 on)
_EPOCH_MS = 1e11  # beyond this, in milliseconds


@dataclass(frozen=True, slots=True)
class Restart:
    at: float  # unix seconds the process started again
    split: int  # the first sample after the restart
    before: float  # the value the series held just before it (the age reached, the old start time)
    rising: bool  # an age falls at a restart; a start time rises


def restart_of(times: Floats, values: Floats) -> Restart | None:
    """The latest restart a series of a process's age or start time shows, or None."""
    if not _readable(values):
        return None
    return _age_restart(times, values) or _start_time_restart(times, values)


def _readable(values: Floats) -> bool:
    return len(values) >= 2 * _MIN_STEPS and bool(np.all(np.isfinite(values)))


def _age_restart(times: Floats, values: Floats) -> Restart | None:
    steps = np.diff(values)
    resets = np.flatnonzero(reset_steps(values))
    if resets.size == 0:
        return None
    split = int(resets[-1]) + 1
    if split < _MIN_STEPS or len(values) - split < _MIN_AFTER:
        return None
    if np.any(np.delete(steps, resets) < 0):
        return None  # an age never falls but to start again
    # Read over spans, not steps: a range query's step is rarely the scrape interval, so an age
    # sampled between scrapes grows in stairs (0, 2 steps, 0...) while its span grows with time.
    before = (values[split - 1] - values[0]) / max(times[split - 1] - times[0], 1e-9)
    for unit in _AGE_UNITS:
        if abs(before - unit) > _AGE_TOLERANCE * unit:
            continue
        at = float(times[-1] - values[-1] / unit)
        # Since the restart it has aged by the time passed: it started between the two samples, up
        # to one scrape early (a value read between scrapes is the last scrape's).
        slack = float(times[split] - times[split - 1]) + _stair(times[:split], values[:split])
        if times[split - 1] - slack <= at <= times[split] + slack:
            return Restart(at=at, split=split, before=float(values[split - 1]), rising=False)
    return None


def counter_restart(times: Floats, values: Floats) -> Restart | None:
    """The latest restart of a process one of whose counts falls back near zero: for a series not
    read as a counter (sampled in stairs, its rises too sparse), whose drop is no level moving."""
    if not _readable(values):
        return None
    steps = np.diff(values)
    resets = np.flatnonzero(reset_steps(values))
    # One restart, by a count that kept counting before it: a state flag (0 and 1) or a gauge that
    # touches zero now and then falls "to zero" too, but steps among a few values.
    if resets.size != 1 or np.any(np.delete(steps, resets) < 0):
        return None
    split = int(resets[0]) + 1
    if split < _MIN_STEPS or len(values) - split < _MIN_AFTER:
        return None
    if np.unique(values[:split]).size < _MIN_COUNTS:
        return None
    return Restart(at=float(times[split]), split=split, before=float(values[split - 1]), rising=False)


def _stair(times: Floats, values: Floats) -> float:
    """The longest a value stood still: the scrape interval, when the query's step is shorter."""
    changed = times[np.flatnonzero(np.diff(values) != 0) + 1]
    return float(np.max(np.diff(changed))) if changed.size > 1 else 0.0


def _start_time_restart(times: Floats, values: Floats) -> Restart | None:
    seconds = np.where(values > _EPOCH_MS, values / 1000.0, values)
    if float(np.min(seconds)) < _EPOCH_MIN or np.any(seconds > times + 60):
        return None  # not unix times, or a "start" in the future of its own sample
    moved = np.flatnonzero(np.diff(seconds) != 0)
    if moved.size == 0:
        return None
    split = int(moved[-1]) + 1
    started = float(seconds[split])
    # It jumped forward, to a moment between the sample before the jump and its own; the other steps
    # held still but for a few earlier restarts (a series that drifts is not a start time).
    if not (seconds[split - 1] < started and times[split - 1] - 60 <= started <= times[split]):
        return None
    if moved.size > max(1, (len(values) - 1) // 20) or split < _MIN_STEPS or len(values) - split < _MIN_AFTER:
        return None
    return Restart(at=started, split=split, before=float(values[split - 1]), rising=True)
