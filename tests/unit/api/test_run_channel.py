"""The run channel: order, bounds, idle waits that lose nothing, and cancellations that stay cancellations."""

from __future__ import annotations

import asyncio

import pytest

from api.run_channel import Channel
from api.run_lifecycle import WAKE, RunChannel, Status


async def test_an_idle_channel_yields_none_and_keeps_what_arrives_later() -> None:
    channel: Channel[str] = Channel(4)
    assert await channel.get(0.01) is None  # silence: time for a keep-alive
    asyncio.get_running_loop().call_later(0.03, channel.put_nowait, "status")
    seen = [await channel.get(0.01) for _ in range(6)]
    assert seen.count("status") == 1  # a timed-out wait lost nothing
    channel.put_nowait("done")
    assert await channel.get(10.0) == "done"


async def test_a_cancelled_wait_is_a_cancellation_not_an_idle_stream() -> None:
    channel: Channel[str] = Channel(4)
    waiting = asyncio.create_task(channel.get(10.0))
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    channel.put_nowait("after")  # the channel still works for the next reader
    assert await channel.get(0.1) == "after"


async def test_an_item_put_at_the_very_deadline_is_read_exactly_once() -> None:
    for _ in range(20):
        channel: Channel[str] = Channel(4)
        asyncio.get_running_loop().call_later(0.01, channel.put_nowait, "status")
        first = await channel.get(0.01)  # the timeout and the item fall due together
        got = [first] if first is not None else []
        second = await channel.get(0.05)
        got += [second] if second is not None else []
        assert got == ["status"]


async def test_items_come_out_in_order_and_a_full_channel_makes_the_writer_wait() -> None:
    channel: Channel[int] = Channel(2)
    await channel.put(1)
    await channel.put(2)
    assert not channel.put_nowait(3)  # full: refused, not lost silently
    writer = asyncio.create_task(channel.put(3))
    await asyncio.sleep(0.01)
    assert not writer.done()  # waits for room
    assert await channel.get() == 1
    await asyncio.wait_for(writer, 1)
    assert [await channel.get(), await channel.get()] == [2, 3]


async def test_statuses_beyond_the_cap_are_dropped_and_other_events_keep_their_room() -> None:
    channel = RunChannel(max_statuses=2, max_events=1)
    for code in ("ROUTING", "PLANNING", "DIAGNOSING", "VERIFYING"):
        channel.status(code)
    await asyncio.wait_for(channel.publish(Status("ANSWER-STAND-IN")), 1)
    channel.wake()  # the shutdown wake still fits
    got = [await channel.events.get(0.1) for _ in range(4)]
    assert got == [Status("ROUTING"), Status("PLANNING"), Status("ANSWER-STAND-IN"), WAKE]
    assert channel.events.empty()
