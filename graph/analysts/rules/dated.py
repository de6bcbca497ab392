"""The system a question dates: "401s since ~14:05" is about the trouble that began at 14:05.

With two problems under way and no system named, the ranking puts first whichever holds the most
trouble. When the question says when its trouble began and the ranking's first began long before that
(a disk that filled an hour earlier on another machine), the question is about the system whose
trouble began at the stated time: it is scoped to that one, like a named system, and the earlier
problem is listed as also happening. A cause may begin a little before what it breaks, so only a
first suspect that began well before the stated time gives way.
"""

from __future__ import annotations

from datetime import timedelta

from graph.analysts.rules.onset import stated_onset
from graph.analysts.rules.suspect import Ranking
from tools.digest.labels import parse_instant

STATED_LEAD = timedelta(minutes=20)  # a cause may begin this long before the trouble the question dates
STATED_SLACK = timedelta(minutes=10)  # "since ~14:05" is a rounded time


def dated_system(ranking: Ranking, question: str, now: str) -> str | None:
    """The system whose trouble began at the question's stated time, when the ranking's first
    suspect began long before it; None when the question states no time or the first fits it."""
    moment = parse_instant(now)
    since = stated_onset(question, moment) if moment is not None else None
    first = ranking.ranked[0].events() if ranking.ranked else []
    if since is None or not first or first[0] >= since - STATED_LEAD:
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
