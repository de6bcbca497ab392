"""A caller's errors naming an object another system acted on just before: who changed what it uses.

A client seldom names the server that refused it ("bulk request failed: index [items-v7] blocked
by: ..."), but it names the object it failed on: an index, a table, a topic, a bucket. When another
system's own lines named that same object shortly before the caller's first error ("updating
index.blocks.read_only to [true] for indices [items-v7/...]"), that system acted on what the caller
uses: it is upstream of the caller's failure. Only objects named like objects (a hyphen, a dot or a
digit inside the word: not a plain word every line may hold), never the caller's own names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from graph.analysts.rules.suspect import MIN_PATTERN_COUNT, Suspect, instant
from tools.facts import LogPattern

# How long before the caller's first error the other system's line about the object may stand.
ACTED_BEFORE = timedelta(minutes=10)
# A word with a hyphen, a dot, an underscore or a digit inside (`items-v7`, `ledger_2024`).
_OBJECT = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+(?![\w-])")
_MIN_LENGTH = 5
# Words of that shape every line of a kind holds: a log's own vocabulary, not objects.
_LINE_WORDS = re.compile(r"^(?:[a-z]+\.)+[a-z]+$")  # `indexer.bulk`, `o.e.c.r.a`: a logger's name


def link_shared_objects(involved: Sequence[Suspect], patterns: Iterable[LogPattern]) -> None:
    """Point each caller with no upstream yet at the one other involved system whose lines named an
    object of the caller's errors within ACTED_BEFORE before those errors began."""
    lines: dict[str, list[LogPattern]] = {}
    for pattern in patterns:
        if pattern.service:
            lines.setdefault(pattern.service, []).append(pattern)
    names = {s.service.lower() for s in involved}
    for caller in involved:
        errors = [p for p in caller.errors if p.count >= MIN_PATTERN_COUNT and not p.origin]
        began = min((t for p in errors if (t := instant(p.first_seen)) is not None), default=None)
        if caller.blames or began is None:
            continue
        own = _own_words(caller, lines.get(caller.service, []))
        objects = {
            o
            for p in errors
            for o in _objects(p.example)
            if o not in names and o not in own and not o.startswith(f"{caller.service.lower()}-")
        }
        if not objects:
            continue
        actors = [
            other
            for other in involved
            if other is not caller and _acted_on(lines.get(other.service, []), objects, began)
        ]
        if len(actors) == 1 and caller.service not in actors[0].blames:
            pattern = max(errors, key=lambda p: p.count)
            actors[0].relayed_by.setdefault(caller.service, pattern)
            caller.blames.add(actors[0].service)


def _objects(text: str) -> set[str]:
    found = {word for word in _OBJECT.findall(text.lower()) if len(word) >= _MIN_LENGTH}
    return {word for word in found if not _LINE_WORDS.match(word) or any(c.isdigit() for c in word)}


def _own_words(caller: Suspect, patterns: Sequence[LogPattern]) -> set[str]:
    """The caller's own names: its service, hosts, pods and instances (its lines say who it is)."""
    own = {caller.service.lower()}
    for labels in caller.label_sets():
        own |= {v.lower().rsplit(":", 1)[0] for v in labels.values()}
    own |= {p.host.lower() for p in patterns if p.host}
    return own


def _acted_on(patterns: Sequence[LogPattern], objects: set[str], began: datetime) -> bool:
    """Whether a line of these (any level) first named one of `objects` shortly before `began`."""
    for pattern in patterns:
        first = instant(pattern.first_seen)
        if first is None or not (began - ACTED_BEFORE <= first <= began):
            continue
        if objects & _objects(pattern.example):
            return True
    return False
