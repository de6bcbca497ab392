"""The window reads cover: long enough for a baseline before the trouble, and before the time the
question says it began.

Two hours hold a baseline before a change in the last hour. Asked at 15:40 about writes "failing since
around 2pm", a two-hour read starts at 13:40, eight minutes before the disk saturated: the move has
no baseline to stand out from, and the answer is built without it. A stated time ("since ~2pm",
"since 13:50", "started around 9") moves the window's start an hour before it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from tools.digest.labels import parse_instant

WINDOW_MINUTES = 120  # long enough for a baseline before a change in the last hour
BASELINE_BEFORE = timedelta(minutes=60)
MAX_WINDOW_MINUTES = 24 * 60  # the tools' default max_range_minutes

# "since ~2pm", "since around 14:05", "started at 9", "from 13:50", "between 02:25 and 03:10": a clock
# time the trouble began at,
# never a duration ("since 2 days", "for 15 minutes").
_STATED = re.compile(
    r"\b(?P<word>since|from|after|started|starting|began|beginning|around|about|at|between)\s+(?:at\s+)?"
    r"(?:~\s*|about\s+|around\s+|roughly\s+|approx\.?\s+)?"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<half>am|pm)?(?P<after>(?:\s*\S+)?)",
    re.IGNORECASE,
)
# What may follow a bare hour ("since 9, ..."): anything else makes it a count ("from 4 replicas",
# "after 5 retries") or a duration ("since 2 weeks").
_AFTER_HOUR = re.compile(
    r"^\s*(?:$|[,;!?)]|\.(?!\d)|(?:utc|gmt|today|and|or|but|o'?clock|ish)\b)", re.IGNORECASE
)
# A clock time in another zone, or on another day: the world's clock cannot place it; the default stays.
# "02:25 last night" is the latest 02:25 before now, as any clock time is.
_ELSEWHEN = re.compile(r"^\s*(?:yesterday|last\b(?!\s+night)|tomorrow|[A-Z]{2,4}T\b|[+-]\d{2}:?\d{2})")


def change_window(question: str, now: str, began: Sequence[str | None], lead: timedelta) -> int:
    """Minutes back from now that reach `lead` before the first of `began` (when the series say the
    trouble began): the change that began it is read even when it came long before the question's
    window (a release at 06:03, its slow inserts from 06:26, the question asked at 08:15)."""
    window = read_window(question, now)
    moment = parse_instant(now)
    starts = [t for t in (parse_instant(b) for b in began if b) if t is not None]
    if moment is None or not starts:
        return window
    needed = math.ceil((moment - min(starts) + lead).total_seconds() / 60)
    return max(window, min(needed, MAX_WINDOW_MINUTES))


def stated_onset(question: str, now: datetime) -> datetime | None:
    """The latest moment not after `now` that the question's stated start names, if it states one
    (the first phrase that reads as a clock time; counts and durations are skipped)."""
    for match in _STATED.finditer(question):
        if (onset := _clock_time(match, now)) is not None:
            return onset
    return None


def _clock_time(match: re.Match[str], now: datetime) -> datetime | None:
    hour, minute = int(match.group("hour")), int(match.group("minute") or 0)
    half = (match.group("half") or "").lower()
    after = match.group("after")
    clock = match.group("minute") is not None or bool(half)
    if match.group("word").lower() == "between" and not clock:
        return None  # "between 3 and 4 replicas" is a range of counts
    if _ELSEWHEN.match(after + match.string[match.end() :]) or (not clock and not _AFTER_HOUR.match(after)):
        return None
    if hour > 23 or minute > 59 or (half and not 1 <= hour <= 12):
        return None
    if half:
        hours = [hour % 12 + (12 if half == "pm" else 0)]
    else:
        # "since 2": 02:00 or 14:00; "02:25", written with its zero, is a 24-hour time.
        padded = match.group("hour").startswith("0")
        hours = [hour] if hour > 12 or hour == 0 or padded else [hour, hour + 12]
    candidates = []
    for h in hours:
        moment = now.replace(hour=h % 24, minute=minute, second=0, microsecond=0)
        candidates.append(moment if moment <= now else moment - timedelta(days=1))
    return max(candidates)


def read_window(question: str, now: str) -> int:
    """Minutes back from now the reads cover: WINDOW_MINUTES, or from an hour before a stated start."""
    moment = parse_instant(now)
    onset = stated_onset(question, moment) if moment is not None else None
    if moment is None or onset is None:
        return WINDOW_MINUTES
    needed = math.ceil((moment - onset + BASELINE_BEFORE).total_seconds() / 60)
    return WINDOW_MINUTES if needed > MAX_WINDOW_MINUTES else max(WINDOW_MINUTES, needed)
