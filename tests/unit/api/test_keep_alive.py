"""Idle streams: the next event or a keep-alive, never a lost event or a swallowed cancellation."""

from __future__ import annotations

import asyncio

import pytest

from api.keep_alive import next_or_idle


async def test_an_idle_queue_yields_none_and_keeps_what_arrives_later() -> None:
    queue: asyncio.Queue[str] = asyncio.Queue()
    assert await next_or_idle(queue, 0.01) is None  # silence: time for a keep-alive
    asyncio.get_running_loop().call_later(0.03, queue.put_nowait, "status")
    seen = []
    for _ in range(6):
        got = await next_or_idle(queue, 0.01)
        seen.append(got)
    assert "status" in seen and seen.count("status") == 1  # a timed-out wait lost nothing
    queue.put_nowait("done")
    assert await next_or_idle(queue, 10.0) == "done"


async def test_a_cancelled_wait_is_a_cancellation_not_an_idle_stream() -> None:
    queue: asyncio.Queue[str] = asyncio.Queue()
    wait = next_or_idle(queue, 10.0)
    waiting = asyncio.create_task(wait)
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def test_an_event_put_at_the_very_deadline_is_read_exactly_once() -> None:
    for _ in range(20):
        queue: asyncio.Queue[str] = asyncio.Queue()
        asyncio.get_running_loop().call_later(0.01, queue.put_nowait, "status")
        first = await next_or_idle(queue, 0.01)  # the timeout and the event fall due together
        got = [first] if first is not None else []
        second = await next_or_idle(queue, 0.05)
        got += [second] if second is not None else []
        assert got == ["status"]
