"""The bounded channel from a run to its one reader (the stream, or the webhook's follower).

A list and at most one waiter per side instead of an `asyncio.Queue` (three deques and their blocks,
~2 KB, for the handful of events a run sends): a channel lives as long as its stream, and hundreds
of streams can be open at once.
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


class Channel(Generic[T]):
    """First in, first out, at most `room` items; `put` waits while it is full. One reader and one
    writer at a time (a run and its stream)."""

    __slots__ = ("_items", "_reader", "_room", "_writer")

    def __init__(self, room: int) -> None:
        self._items: list[T] = []
        self._room = room
        self._reader: asyncio.Future[None] | None = None
        self._writer: asyncio.Future[None] | None = None

    def empty(self) -> bool:
        return not self._items

    def full(self) -> bool:
        return len(self._items) >= self._room

    def put_nowait(self, item: T) -> bool:
        """Add `item` unless the channel is full; whether it was added."""
        if self.full():
            return False
        self._items.append(item)
        _wake(self._reader)
        return True

    async def put(self, item: T) -> None:
        while self.full():
            self._writer = asyncio.get_running_loop().create_future()
            await self._writer
        self.put_nowait(item)

    async def get(self, idle_s: float | None = None) -> T | None:
        """The next item; None after `idle_s` without one (time for a keep-alive). A wait that times
        out loses nothing: an item put at that instant is the next call's."""
        if not self._items:
            self._reader = asyncio.get_running_loop().create_future()
            try:
                async with asyncio.timeout(idle_s):
                    await self._reader
            except TimeoutError:
                if not self._items:
                    return None
            finally:
                self._reader = None
        item = self._items.pop(0)
        _wake(self._writer)
        return item


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)
