"""How the suspects of one incident are ordered: who began first, who others' errors point to, who
changed or restarted just before, whose own words say what ran out, how severe its alerts and how many
of its series moved. A system with little to score (a third party, a cache known by an alert) ranks just
above the callers whose errors are its failures."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from graph.analysts.rules.categories import categorize
from graph.analysts.rules.category_cues import EXHAUSTED
from graph.analysts.rules.links import (
    pointed_at_by,
)
from graph.analysts.rules.suspect import (
    MIN_PATTERN_COUNT,
    Suspect,
    instant,
    troubling,
)
from graph.analysts.rules.vocabulary import (
    RAN_OUT,
    SEVERE_ALERTS,
)
from tools.facts import LogPattern

CHANGE_LEAD = timedelta(minutes=30)  # a change this long before the onset can be its cause


# A restart is its system's onset itself (its age falls as its first trouble shows), within a scrape.
RESTART_SLACK = timedelta(minutes=2)


BEGAN_IT = timedelta(minutes=2)  # a change this close before the incident's first trouble began it


def rank_upstream_over_victims(involved: Sequence[Suspect]) -> None:
    """A system with no error lines of its own (a third party, a cache whose only sign is an alert on
    what its callers' errors quote) has little to score; a caller whose main errors are its failures
    at that system is its victim, so the system ranks just above that caller."""
    for upstream in (s for s in involved if s.external or (s.alert_quoted_by and not s.errors)):
        pointing = {**upstream.blamed_by, **upstream.relayed_by}
        victims = [
            caller
            for caller in involved
            if (pattern := pointing.get(caller.service)) is not None
            and pattern.count * 2 >= max((p.count for p in caller.errors if not p.origin), default=0)
        ]
        if victims:
            upstream.score = max(upstream.score, max(v.score for v in victims) + 0.5)


def score_suspect(
    suspect: Suspect, involved: Sequence[Suspect], start: datetime, focus: Sequence[str]
) -> float:
    onsets = sorted({s.onset for s in involved if s.onset is not None})
    score = 0.0
    names = {s.service for s in involved}
    # Beginning first counts for a system with trouble of its own, or whose change came moments before
    # the others' trouble (a cache reloaded a second before its origin slowed); one whose only sign is
    # a change minutes before (a cache restarting beside a deploy) scores that change below, not twice.
    began_others = min(
        (s.onset for s in involved if s is not suspect and _troubled(s, names) and s.onset), default=None
    )
    began_it = began_others is not None and any(
        began_others - BEGAN_IT <= t <= began_others for t in suspect.change_times()
    )
    if suspect.onset is not None and onsets and (_troubled(suspect, names) or began_it):
        score += 3.0 * (1 - onsets.index(suspect.onset) / max(1, len(onsets)))
    score += 3.0 * len(pointed_at_by(suspect) & names)
    score -= 2.0 * len(suspect.blames & names)
    score += 3.0 if suspect.held_by_sql else 0.0
    onset = suspect.onset or start
    if changes_near(suspect, onset) or any(
        onset - CHANGE_LEAD <= t <= onset + RESTART_SLACK for t in suspect.restarts()
    ):
        score += 2.0
        # The change that began it: within moments of the first trouble of all, before it.
        first = min((s.onset for s in involved if s.onset is not None), default=onset)
        if onset == first and any(first - BEGAN_IT <= t <= first for t in suspect.change_times()):
            score += 1.0
    incident_errors = [p for p in suspect.errors if p.count >= MIN_PATTERN_COUNT]
    score += 1.0 if incident_errors else 0.0
    score += 1.0 if sum(p.count for p in incident_errors) >= 50 else 0.0
    # Its own lines say which resource ran out ("No space left on device", "out of memory"): a cause
    # in its own words, where a caller's "write failed" says only that something did.
    # Not when its errors relay another system's (a client quoting its server's "disk usage exceeded").
    relayed = any(suspect.service in s.relayed_by for s in involved)
    score += 1.5 if not relayed and _exhaustion_in_own_words(incident_errors) else 0.0
    score += 1.0 if any((g.severity or "").lower() in SEVERE_ALERTS for g in suspect.alerts) else 0.0
    score += min(3, len({a.metric for a in suspect.anomalies if troubling(a)})) * 0.5
    score += 0.1 if suspect.service in focus else 0.0
    return round(score, 3)


def _troubled(suspect: Suspect, names: set[str]) -> bool:
    """Trouble of its own (an alert, a moving series, errors) or others pointing to it."""
    return bool(
        suspect.alerts
        or any(troubling(a) for a in suspect.anomalies)
        or any(p.count >= MIN_PATTERN_COUNT for p in suspect.errors)
        or pointed_at_by(suspect) & names
        or suspect.held_by_sql
    )


def _exhaustion_in_own_words(errors: Sequence[LogPattern]) -> bool:
    text = "\n".join(f"{p.template} {p.example}" for p in errors if not p.origin)
    return bool(text) and (categorize(text, changed=False) in EXHAUSTED or RAN_OUT.search(text) is not None)


def changes_near(suspect: Suspect, onset: datetime) -> list[LogPattern]:
    """Its change lines near its onset or near its first trouble, which may have crept in before the
    densest minutes (a release at 06:03, its own first slow-write warnings at 06:30, everyone's
    errors from 06:56): any of its own error or warning lines, however few."""
    first_lines = [t for p in suspect.errors if not p.origin and (t := instant(p.first_seen)) is not None]
    crept = min([t for t in [*suspect.events(), *first_lines] if t < onset], default=onset)
    # A start line first logged after its own first error is the restart that error caused (a crash
    # loop's "x 1.4.2 starting"), never its cause; a chronic warning from hours before the incident
    # (a stray "no slot" every few minutes since 08:42) is not that first error.
    failed = min((t for t in first_lines if t >= onset - CHANGE_LEAD), default=None)
    return [
        p
        for p in suspect.changes
        if (_near_change(p, onset) or _near_change(p, crept))
        and not (failed is not None and (began := instant(p.first_seen)) is not None and began > failed)
    ]


def _near_change(pattern: LogPattern, onset: datetime) -> bool:
    """A change line seen up to CHANGE_LEAD before the onset (or just after it)."""
    first, last = instant(pattern.first_seen), instant(pattern.last_seen)
    if first is not None and onset - CHANGE_LEAD <= first <= onset + timedelta(minutes=5):
        return True
    # A recurring change (a deploy a day) counts by its latest line too, when that line came before
    # the trouble: a later one (a rollback) is a response to it, never its cause.
    return last is not None and onset - CHANGE_LEAD <= last <= onset
