"""Ranking of past cases against a question by token overlap; pure functions on plain text."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_\-]*[a-z0-9]|[a-z0-9]")
# words that say nothing about an incident; without this list "why is X slow" matches everything
_STOPWORD_TEXT = (
    "a an and are as at be by can did do does for from has have how i in is it its me my not "
    "of on or our so that the this to was we were what when where which who why will with"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def tokens(text: str) -> frozenset[str]:
    """Lower-case content words of `text`."""
    return frozenset(t for t in _TOKEN.findall(text.lower()) if t not in _STOPWORDS)


def overlap_score(question: frozenset[str], case: frozenset[str]) -> float:
    """Share of the question's words found in the case (0..1); 0 when either side is empty."""
    if not question or not case:
        return 0.0
    return len(question & case) / len(question)
