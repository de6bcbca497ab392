"""A caller quoting its callee's error: the same words said outright in one system's error lines and
inside a quoted value of another's.

A client rarely names the server it failed at ("insert failed ... err=\"... Too many parts ...
Merges are processing significantly slower than inserts\""), but it often carries the server's own
message. Five words in a row of one system's error line that another system's line carries inside a
`key="..."` value say the second relays the first's failure: the first is upstream.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graph.analysts.rules.suspect import MIN_PATTERN_COUNT, Suspect, instant
from tools.facts import LogPattern

PHRASE_WORDS = 5
_WORD = re.compile(r"[a-z][a-z_']+")


def link_quoted_errors(involved: Sequence[Suspect]) -> None:
    """Link each caller to the one system whose error words its lines quote (a phrase several
    systems say outright links nothing)."""
    phrases = {s.service: _phrases(s) for s in involved}
    for caller in involved:
        if caller.blames:
            continue
        sources: list[tuple[Suspect, LogPattern]] = []
        for other in involved:
            shared = phrases[caller.service].keys() & phrases[other.service].keys()
            if other is caller or not shared:
                continue
            mine = _earliest(phrases[caller.service], shared)
            theirs = _earliest(phrases[other.service], shared)
            if mine is None or theirs is None:
                continue
            # Who quotes whom: the words inside a `key="..."` value of one line and said outright in
            # the other's. Time alone cannot tell (peers log one outage's words together, and a capped
            # read hides the true first lines).
            if _wrapped(mine, shared) and not _wrapped(theirs, shared):
                sources.append((other, mine))
        if len(sources) == 1 and caller.service not in sources[0][0].blames:
            source, pattern = sources[0]
            source.relayed_by.setdefault(caller.service, pattern)
            caller.blames.add(source.service)


def _errors(suspect: Suspect) -> list[LogPattern]:
    return [p for p in suspect.errors if p.count >= MIN_PATTERN_COUNT and (p.level or "").lower() != "warn"]


def _phrases(suspect: Suspect) -> dict[tuple[str, ...], list[LogPattern]]:
    """The five-word runs of a system's error lines (their examples: a template is clipped), each
    with the patterns that hold it."""
    grams: dict[tuple[str, ...], list[LogPattern]] = {}
    for pattern in _errors(suspect):
        for gram in _grams(_words(pattern.example)):
            grams.setdefault(gram, []).append(pattern)
    return grams


def _earliest(
    phrases: dict[tuple[str, ...], list[LogPattern]], shared: set[tuple[str, ...]]
) -> LogPattern | None:
    """The pattern of a system's first line holding any of the shared words."""
    found = [(t, p) for g in shared for p in phrases[g] if (t := instant(p.first_seen)) is not None]
    return min(found, key=lambda pair: (pair[0], pair[1].template))[1] if found else None


def _wrapped(pattern: LogPattern, shared: set[tuple[str, ...]]) -> bool:
    """Whether the shared words stand inside a quoted `key="..."` value of the pattern's line (a
    client's `err="..."` carrying a server's message)."""
    text = pattern.example.lower()
    # Where the shared words first stand in the line (whatever order the set iterates in).
    starts = [
        found.start() for gram in shared if (found := re.search("[^a-z]+".join(map(re.escape, gram)), text))
    ]
    if not starts:
        return False
    before = text[: min(starts)]
    opened = before.rfind('="')
    return opened >= 0 and '"' not in before[opened + 2 :]


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _grams(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + PHRASE_WORDS]) for i in range(len(words) - PHRASE_WORDS + 1)}
