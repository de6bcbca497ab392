"""The system a question dates: "401s since ~14:05" is about the trouble that began at 14:05.

With two problems under way and no system named, the ranking puts first whichever holds the most
trouble. When the question says when its trouble began and the ranking's first began long before that
(a disk that filled an hour earlier on another machine), the question is about the system whose
trouble began at the stated time: it is scoped to that one, like a named system, and the earlier
problem is listed as also happening. A cause may begin a little before what it breaks, so only a
first suspect that began well before the stated time gives way.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from graph.analysts.rules.onset import stated_onset
from graph.analysts.rules.suspect import Ranking
from tools.digest.labels import parse_instant
from tools.facts import Digest

STATED_LEAD = timedelta(minutes=20)  # a cause may begin this long before the trouble the question dates
STATED_SLACK = timedelta(minutes=10)  # "since ~14:05" is a rounded time


def dated_system(ranking: Ranking, question: str, now: str, digest: Digest | None = None) -> str | None:
    """The system whose trouble began at the question's stated time, when the ranking's first
    suspect began long before it, or the system of an alert that fired then and has resolved when
    the first began well after it; None when the question states no time or the first fits it."""
    moment = parse_instant(now)
    since = stated_onset(question, moment) if moment is not None else None
    if since is None:
        return None
    first = ranking.ranked[0].events() if ranking.ranked else []
    if digest is not None and (not first or first[0] > since + STATED_LEAD):
        # "The alarm fired around 12:10, what happened?" while another alert flaps now: the question
        # dates a trouble over before anything the ranking holds began, so it is about that one.
        return _resolved_at(digest, since)
    if not first or first[0] >= since - STATED_LEAD or any(abs(t - since) <= STATED_SLACK for t in first):
        # Its trouble began later, or also at the stated time (a leak that grew for half an hour and
        # killed its pods then): it fits the question.
        return None
    for suspect in [*ranking.ranked, *ranking.herrings]:
        starts = suspect.events()
        if (
            starts
            and starts[0] >= since - STATED_LEAD
            and any(abs(t - since) <= STATED_SLACK for t in starts)
        ):
            return suspect.service
    return None


def _resolved_at(digest: Digest, since: datetime) -> str | None:
    """The one system with an alert that fired at `since` and has resolved."""
    systems = {
        g.service
        for g in digest.alert_groups
        if g.status != "firing"
        and g.service
        and (started := parse_instant(g.first_started or "")) is not None
        and abs(started - since) <= STATED_SLACK
    }
    return systems.pop() if len(systems) == 1 else None
