"""Warning lines that are a system's background, not its trouble: a warning trickling in over a long
span, and a web server's records of clients' own mistakes."""

from __future__ import annotations

import re
from datetime import timedelta

from graph.analysts.rules.suspect import instant
from graph.analysts.rules.vocabulary import WARN_LEVELS
from tools.base import status_pattern
from tools.facts import LogPattern

BACKGROUND_SPAN = timedelta(minutes=45)
BACKGROUND_GAP = timedelta(minutes=8)


_CLIENT_STATUS = re.compile(status_pattern("4xx", received=False))  # a tier's records of what it served


def client_mistakes(pattern: LogPattern) -> bool:
    """Access records at warning level whose status says the client erred (4xx), not the server."""
    return (pattern.level or "").lower() in WARN_LEVELS and _CLIENT_STATUS.search(pattern.example) is not None


def background(pattern: LogPattern) -> bool:
    """A warning that trickles in over a long span (under one line per BACKGROUND_GAP) is noise."""
    first, last = instant(pattern.first_seen), instant(pattern.last_seen)
    if first is None or last is None or last - first < BACKGROUND_SPAN:
        return False
    return (last - first) / max(pattern.count, 1) > BACKGROUND_GAP
