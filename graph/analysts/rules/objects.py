"""A caller's errors naming an object another system acted on or alerted about: who failed what it uses.

A client seldom names the server that refused it ("bulk request failed: index [items-v7] blocked
by: ..."), but it names the object it failed on: an index, a table, a topic, a bucket. When another
system's own lines named that same object shortly before the caller's first error ("updating
index.blocks.read_only to [true] for indices [items-v7/...]"), that system acted on what the caller
uses: it is upstream of the caller's failure. So is a system whose alert, fired around then, names a
setting the caller's error quotes from its server ("used memory > 'maxmemory'" and an alert
`...OutOfConfiguredMaxmemory`). Only objects named like objects (a hyphen, a dot or a digit inside the
word, or quoted as a name: not a plain word every line may hold), never the caller's own names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from graph.analysts.rules.suspect import MIN_PATTERN_COUNT, Suspect, instant
from graph.analysts.rules.vocabulary import readable
from tools.facts import LogPattern

# How long before the caller's first error the other system's line about the object may stand.
ACTED_BEFORE = timedelta(minutes=10)
# A word with a hyphen, a dot, an underscore or a digit inside (`items-v7`, `ledger_2024`).
_OBJECT = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+(?![\w-])(?!=)")  # not a `key=`
_MIN_LENGTH = 5
# Words of that shape every line of a kind holds: a log's own vocabulary, not objects.
_LINE_WORDS = re.compile(r"^(?:[a-z]+\.)+[a-z]+$")  # `indexer.bulk`, `o.e.c.r.a`: a logger's name
# A setting or resource a server's message quotes by name ("used memory > 'maxmemory'").
_QUOTED_NAME = re.compile(r"(?<!\w)'([a-z][\w.-]{4,40})'(?!\w)")


def link_shared_objects(involved: Sequence[Suspect], patterns: Iterable[LogPattern]) -> None:
    """Point each caller with no upstream yet at the one other involved system whose lines named an
    object of the caller's errors within ACTED_BEFORE before those errors began."""
    lines = _by_service(patterns)
    # Each line's objects and first time, read once for every caller that asks.
    named = {
        service: [(first, _objects(p.example)) for p in found if (first := instant(p.first_seen)) is not None]
        for service, found in lines.items()
    }
    names = {s.service.lower() for s in involved}
    for caller in involved:
        if caller.blames or (asked := _caller_objects(caller, lines, names)) is None:
            continue
        objects, began, pattern = asked
        acted = {o.service for o in involved if _acted_on(named.get(o.service, []), objects, began)}
        alerted = {o.service for o in involved if _alerted_on(o, objects, began)}
        actors = [other for other in involved if other is not caller and other.service in acted | alerted]
        if len(actors) == 1 and caller.service not in actors[0].blames:
            actors[0].relayed_by.setdefault(caller.service, pattern)
            caller.blames.add(actors[0].service)
            if actors[0].service in alerted:
                actors[0].alert_quoted_by.add(caller.service)


def alerted_about(
    involved: Sequence[Suspect], others: Iterable[Suspect], patterns: Iterable[LogPattern]
) -> list[Suspect]:
    """The systems outside the incident's window whose alert, still firing, names what a caller's
    errors quote (a cache alerting on its memory limit since before its clients' writes failed)."""
    lines = _by_service(patterns)
    names = {s.service.lower() for s in involved}
    asked = [a for caller in involved if (a := _caller_objects(caller, lines, names)) is not None]
    return [other for other in others if any(_alerted_on(other, o, began) for o, began, _ in asked)]


def _caller_objects(
    caller: Suspect, lines: dict[str, list[LogPattern]], names: set[str]
) -> tuple[set[str], datetime, LogPattern] | None:
    """The objects a caller's errors name, when they began, and its main pattern; None without any."""
    errors = [p for p in caller.errors if p.count >= MIN_PATTERN_COUNT and not p.origin]
    began = min((t for p in errors if (t := instant(p.first_seen)) is not None), default=None)
    if began is None:
        return None
    own = _own_words(caller, lines.get(caller.service, []))
    objects = {
        o
        for p in errors
        for o in _objects(p.example)
        if o not in names
        and o not in own
        and not o.startswith(f"{caller.service.lower()}-")
        and not _who_called(p.example.lower(), o)
    }
    return (objects, began, max(errors, key=lambda p: p.count)) if objects else None


# A key naming who called the one logging (`"client_id":"x"`, `user=x`): the caller's own client, no
# object it failed on elsewhere.
_CALLED_BY = r"(?:client|client_?id|caller|user|user_id|tenant|tenant_id|customer|customer_id|partner)"


def _who_called(text: str, word: str) -> bool:
    return re.search(rf"\b{_CALLED_BY}[\"']?\s*[:=]\s*[\"']?{re.escape(word)}(?![\w-])", text) is not None


def _objects(text: str) -> set[str]:
    lowered = text.lower()
    found = {word for word in _OBJECT.findall(lowered) if len(word) >= _MIN_LENGTH}
    found = {word for word in found if not _LINE_WORDS.match(word) or any(c.isdigit() for c in word)}
    return found | set(_QUOTED_NAME.findall(lowered))


def _alerted_on(other: Suspect, objects: set[str], began: datetime) -> bool:
    """Whether a firing alert of `other`, fired before the caller's errors began (or just after), names
    one of `objects` (`...OutOfConfiguredMaxmemory` for a client's "used memory > 'maxmemory'")."""
    for group in other.alerts:
        fired = instant(group.first_started)
        if fired is None or fired > began + ACTED_BEFORE:
            continue
        words = set(readable(f"{group.alertname} {group.summary or ''}").split())
        if objects & words:
            return True
    return False


def _own_words(caller: Suspect, patterns: Sequence[LogPattern]) -> set[str]:
    """The caller's own names: its service, hosts, pods and instances (its lines say who it is)."""
    own = {caller.service.lower()}
    for labels in caller.label_sets():
        own |= {v.lower().rsplit(":", 1)[0] for v in labels.values()}
    own |= {p.host.lower() for p in patterns if p.host}
    return own


def _acted_on(named: Sequence[tuple[datetime, set[str]]], objects: set[str], began: datetime) -> bool:
    """Whether a line (any level; its first time and objects) first named one of `objects` shortly
    before `began`."""
    return any(began - ACTED_BEFORE <= first <= began and objects & found for first, found in named)


def _by_service(patterns: Iterable[LogPattern]) -> dict[str, list[LogPattern]]:
    lines: dict[str, list[LogPattern]] = {}
    for pattern in patterns:
        if pattern.service:
            lines.setdefault(pattern.service, []).append(pattern)
    return lines
