"""Admission to the bounded run pool: a non-blocking permit, released exactly once.

A plain counter is race-free on one event loop. A permit is released by its run as soon as the run's
work stops (`RunControl.work_stopped`: graph done, or cancel requested), and at the latest by the
response itself (even when the stream generator never starts), never by the generator's `finally` alone.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Permit:
    _pool: Admission
    _released: bool = False

    def release(self) -> None:
        """Idempotent: a second release never raises capacity."""
        if not self._released:
            self._released = True
            self._pool._in_use -= 1


@dataclass(slots=True)
class Admission:
    capacity: int
    _in_use: int = 0

    @property
    def in_use(self) -> int:
        return self._in_use

    def try_acquire(self) -> Permit | None:
        """A permit, or None when every worker slot is taken (the caller answers 503)."""
        if self._in_use >= self.capacity:
            return None
        self._in_use += 1
        return Permit(self)
