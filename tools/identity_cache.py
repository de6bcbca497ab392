"""`IdentityCache`: a bounded, thread-safe LRU for values derived from immutable evidence objects.

Keys may hold `id()`s of the objects a value was derived from; each entry keeps those objects alive,
so no other object can take one of those ids while the entry exists. Evidence data is never edited
once recorded, which is what makes identity a sound key.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class IdentityCache(Generic[V]):
    """At most `size` entries; the least recently used goes first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[Hashable, tuple[Any, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key: Hashable, keep_alive: Any, compute: Callable[[], V]) -> tuple[V, bool]:
        """The cached value of `key` (and True), or `compute()` stored with `keep_alive` (and False).

        `compute` runs outside the lock: two threads missing the same key both compute, and the
        later result wins, which is harmless for pure derivations.
        """
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return entry[1], True
        value = compute()
        with self._lock:
            self._entries[key] = (keep_alive, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value, False

    def clear(self) -> None:
        """Forget every entry (tests, or to release the objects the entries keep alive)."""
        with self._lock:
            self._entries.clear()
