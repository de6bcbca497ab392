"""A change to a setting that a system's own errors quote: "server reached pm.max_children setting
(8)" beside a configuration agent's diff "+pm.max_children = 8" a minute before. The agent's lines
name no system, but they name the setting, and the system whose errors quote it is the one changed.

A setting is named like one: lower-case words joined by dots or underscores with at least one
underscore (`pm.max_children`, `max_connections`, `innodb_lock_wait_timeout`), never a path, an
address or a `key=` of the line's own fields.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from graph.analysts.rules.suspect import Suspect

_SETTING = re.compile(
    r"(?<![\w./:-])[a-z][a-z0-9]*(?:[._][a-z0-9]+)*_[a-z0-9]+(?:[._][a-z0-9]+)*(?![\w/:-]|=)"
)
_MIN_LENGTH = 6
MAX_SETTINGS = 2


def settings_quoted(text: str) -> list[str]:
    """The setting names `text` holds, first first."""
    found = [m.group(0) for m in _SETTING.finditer(text) if len(m.group(0)) >= _MIN_LENGTH]
    return list(dict.fromkeys(found))


def attribute_setting_changes(suspects: Mapping[str, Suspect]) -> None:
    """Move each change of a system in no trouble of its own (a configuration agent) that names a
    setting exactly one other system's errors quote to that system."""
    quoted: dict[str, set[str]] = {}
    for suspect in suspects.values():
        for pattern in suspect.errors:
            for setting in settings_quoted(f"{pattern.template} {pattern.example}".lower()):
                quoted.setdefault(setting, set()).add(suspect.service)
    for agent in suspects.values():
        if agent.errors or agent.alerts or agent.anomalies:
            continue
        for pattern in list(agent.changes):
            text = f"{pattern.template} {pattern.example}".lower()
            owners = {o for s in settings_quoted(text) for o in quoted.get(s, set()) if o != agent.service}
            if len(owners) == 1:
                agent.changes.remove(pattern)
                suspects[owners.pop()].changes.append(pattern)
