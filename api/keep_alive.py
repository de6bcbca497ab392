"""Keep-alives of idle streams: the next run event, or a comment frame after a stretch of silence.

Proxies close connections that carry nothing for a while, and a run can wait minutes on a model.
The stream pings from its own loop, only when idle, instead of a ping task per response.
"""

from __future__ import annotations

import asyncio
from typing import TypeVar

from sse_starlette import ServerSentEvent

T = TypeVar("T")


async def next_or_idle(queue: asyncio.Queue[T], idle_s: float) -> T | None:
    """The run's next event, or None after `idle_s` without one (time for a keep-alive frame).

    A timed-out `get` loses nothing: an event that arrives at that instant stays in the queue for
    the next call. Pinging here replaced sse-starlette's ping task: one task fewer per open stream
    (~5 KB each) and no pings while events flow.
    """
    try:
        async with asyncio.timeout(idle_s):
            return await queue.get()
    except TimeoutError:
        return None


def keep_alive() -> ServerSentEvent:
    """A comment frame: clients ignore it, proxies see traffic on an idle stream."""
    return ServerSentEvent(comment="ping")
