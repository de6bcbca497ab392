"""A change to a setting or a resource that a system's own errors quote: "server reached
pm.max_children setting (8)" beside a configuration agent's diff "+pm.max_children = 8" a minute
before; "permission denied on resource 'projects/p/keyRings/k/cryptoKeys/c'" beside a cloud audit
log's `SetIamPolicy` on that same resource. The agent's lines name no system, but they name what
changed, and the system whose errors quote it is the one changed.

A setting is named like one: lower-case words joined by dots or underscores with at least one
underscore (`pm.max_children`, `max_connections`, `innodb_lock_wait_timeout`), never a path, an
address or a `key=` of the line's own fields. A resource is a path of three parts or more.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from graph.analysts.rules.suspect import Suspect

_SETTING = re.compile(
    r"(?<![\w./:-])[a-z][a-z0-9]*(?:[._][a-z0-9]+)*_[a-z0-9]+(?:[._][a-z0-9]+)*(?![\w/:-]|=|\"\s*:)",
    re.IGNORECASE,
)
_MIN_LENGTH = 6
# A resource's path (`projects/p/locations/l/keyRings/k`, `arn:aws:iam::1:role/x`), not a URL's.
_RESOURCE = re.compile(r"(?<![\w/.:-])(?![a-z]+://)[\w.:@-]+(?:/[\w.:@-]+){2,}")
_MIN_RESOURCE = 16
MAX_SETTINGS = 3


def settings_quoted(text: str) -> list[str]:
    """The setting names and resource paths `text` holds, first first, as written (a JSON field's
    name, `"lease_id":`, is none)."""
    found = [m.group(0) for m in _SETTING.finditer(text) if len(m.group(0)) >= _MIN_LENGTH]
    found += [m.group(0) for m in _RESOURCE.finditer(text) if len(m.group(0)) >= _MIN_RESOURCE]
    return list(dict.fromkeys(found))


# Where a server's message cites a setting or a resource as one: next to the word for it ("reached
# pm.max_children setting", "parameter max_connections") or quoted ("denied on resource 'projects/...'").
_CITED = re.compile(
    r"\b(?:setting|parameter|option|directive|variable|limit)s?\s+['\"`]?(?P<after>[\w./:@-]+)"
    r"|(?P<before>[\w./:@-]+)['\"`]?\s+(?:setting|parameter|option|directive|variable|limit)s?\b"
    r"|'(?P<quoted>[^'\s]{6,})'",
    re.IGNORECASE,
)


def settings_cited(text: str) -> list[str]:
    """The settings and resource paths `text` cites as such, as written: what a read for the change
    behind them looks for. A word that only looks like a setting (a user name, a tool's name in a
    line) is not read for."""
    found = {m.group("after") or m.group("before") or m.group("quoted") for m in _CITED.finditer(text)}
    return [name for name in settings_quoted(text) if name in found]


def attribute_setting_changes(suspects: Mapping[str, Suspect]) -> None:
    """Move each change of a system in no trouble of its own (a configuration agent) that names a
    setting exactly one other system's errors quote to that system."""
    quoted: dict[str, set[str]] = {}
    for suspect in suspects.values():
        for pattern in suspect.errors:
            for setting in settings_quoted(f"{pattern.template} {pattern.example}"):
                quoted.setdefault(setting.lower(), set()).add(suspect.service)
    for agent in suspects.values():
        if agent.errors or agent.alerts or agent.anomalies:
            continue
        for pattern in list(agent.changes):
            said = settings_quoted(f"{pattern.template} {pattern.example}")
            owners = {o for s in said for o in quoted.get(s.lower(), set()) if o != agent.service}
            if len(owners) == 1:
                agent.changes.remove(pattern)
                suspects[owners.pop()].changes.append(pattern)
