"""What the guard reads of one evidence item, computed once per item and cached.

The guard runs after every draft and every repair, and concurrent runs served from the tool cache share
the same data objects, so the costly part (the JSON text of the data, its numbers, the ISO forms of its
timestamps, the entity names in it) is cached by the identity of the item's data and query. Evidence
is immutable once recorded (`Evidence` is frozen and its data is never edited), which is what makes
identity a sound key; each entry keeps the objects of its key alive so no other object can take an id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tools.base import Evidence
from tools.identity_cache import IdentityCache

NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
# Unix seconds between 2001 and 2100: rendered as ISO so "14:02" claims can be checked.
_UNIX_RANGE = (1_000_000_000, 4_102_444_800)
ENTITY_KEYS = frozenset(
    {
        "service",
        "app",
        # A session's application as a database reports it (inspect_database): a name a claim can state.
        "application",
        "job",
        "instance",
        "host",
        "hostname",
        "pod",
        "container",
        "node",
        "deployment",
    }
)
# `"key": "value"` pairs of compact-enough JSON (json.dumps' default separators). An opening quote is
# never preceded by a backslash, and quotes inside string literals always are, so a match is exactly a
# string-valued entity field at any depth: the same fields the recursive walk finds, read in one C scan.
_ENTITY_FIELD = re.compile(r'(?<!\\)"(' + "|".join(sorted(ENTITY_KEYS)) + r')": "((?:[^"\\]|\\.)*)"')
# About six full runs of evidence (at most 40 items each); each entry keeps its data alive.
CACHED_ITEMS = 256


@dataclass(frozen=True, slots=True)
class Stamped:
    """The numbers written in an item's text, and the ISO forms of those that are unix seconds."""

    numbers: tuple[float, ...]
    iso_forms: frozenset[str]
    stamps: str  # the ISO forms, sorted, one line
    stamp_numbers: tuple[float, ...]  # the numbers written in that line


@dataclass(slots=True)
class ItemText:
    """The text of one item as written (without digest facts) and the names in it (lower-cased).

    Its numbers are read on first use: every item's names are needed, only cited items' numbers.
    """

    title: str
    summary: str
    data: str  # the JSON text of the data
    query: str  # the JSON text of the query
    entities: frozenset[str]
    _stamped: Stamped | None = None

    def text(self) -> str:
        return "\n".join((self.title, self.summary, self.data, self.query))

    def stamped(self) -> Stamped:
        # Computed at most a few times under a race, always to the same value: no lock needed.
        if self._stamped is None:
            numbers = numbers_in(self.text())
            forms = iso_forms(numbers)
            stamps = " ".join(sorted(forms))
            self._stamped = Stamped(numbers, forms, stamps, numbers_in(stamps))
        return self._stamped


def read_item(item: Evidence) -> ItemText:
    """The text and entity names of one item; pure."""
    strict = _strict_dump(item.data)
    data = strict if strict is not None else dump(item.data)
    entities = _entities_in_json(data) if strict is not None else _walked_entities(item.data)
    return ItemText(
        title=item.title,
        summary=item.summary,
        data=data,
        query=dump(item.query),
        entities=frozenset(entities),
    )


class ItemTextCache:
    """`read_item` results keyed by the item's content identity."""

    def __init__(self, size: int = CACHED_ITEMS) -> None:
        self._cache: IdentityCache[ItemText] = IdentityCache(size)

    def read(self, item: Evidence) -> ItemText:
        """The cached text of `item`, reading it on a miss."""
        # Title and summary are part of the key by value: they are small and may differ for shared data.
        key = (id(item.data), id(item.query), item.title, item.summary)
        text, _ = self._cache.get_or_compute(key, (item.data, item.query), lambda: read_item(item))
        return text

    def clear(self) -> None:
        """Forget every entry (tests, or to release the data the entries keep alive)."""
        self._cache.clear()


def numbers_in(text: str) -> tuple[float, ...]:
    """Every number written in `text`, once each, in order of first appearance."""
    return tuple(dict.fromkeys(float(written) for written in dict.fromkeys(NUMBER.findall(text))))


def iso_forms(numbers: Iterable[float]) -> frozenset[str]:
    """ISO-8601 forms of the numbers that read as unix seconds."""
    low, high = _UNIX_RANGE
    return frozenset(
        datetime.fromtimestamp(value, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
        for value in {value for value in numbers if low <= value <= high}
    )


def dump(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _strict_dump(value: Any) -> str | None:
    """The JSON text when `value` is plain JSON (as every toolbox result is); else None."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except TypeError:
        return None


def _entities_in_json(text: str) -> set[str]:
    names: set[str] = set()
    for match in _ENTITY_FIELD.finditer(text):
        raw = match.group(2)
        value = raw if "\\" not in raw else str(json.loads(f'"{raw}"'))
        if value:
            names.add(value.lower())
    return names


def _walked_entities(value: Any) -> set[str]:
    """The same names read by walking Python values (data that is not plain JSON)."""
    names: set[str] = set()
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, Mapping):
            for key, inner in current.items():
                if key in ENTITY_KEYS and isinstance(inner, str) and inner:
                    names.add(inner.lower())
                else:
                    stack.append(inner)
        elif isinstance(current, list | tuple):
            stack.extend(current)
    return names
