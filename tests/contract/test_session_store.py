"""Session-context contract: the same behaviour in-process and on real Redis, plus Redis-down."""

from __future__ import annotations

import json
import socket
import uuid

from persistence.sessions import TRUNCATION_MARK, ContextBounds, RedisContextStore
from tests.contract.conftest import ContextBackend

BOUNDS = ContextBounds(ttl_s=60, max_turns=5, max_turn_bytes=512, max_history_bytes=4_096)


def _sid() -> str:
    return f"s-{uuid.uuid4().hex}"


async def test_keeps_only_the_newest_turns(context_backend: ContextBackend) -> None:
    store = context_backend.make(BOUNDS)
    sid = _sid()
    for n in range(8):
        result = await store.append_turn(session_id=sid, turn={"n": n, "query": f"q{n}"})
        assert result.stored and not result.degraded
    history = await store.history(session_id=sid)
    assert [turn["n"] for turn in history.turns] == [3, 4, 5, 6, 7]
    assert not history.degraded


async def test_sessions_are_isolated(context_backend: ContextBackend) -> None:
    store = context_backend.make(BOUNDS)
    alice, bob = _sid(), _sid()
    await store.append_turn(session_id=alice, turn={"query": "alice asks"})
    await store.append_turn(session_id=bob, turn={"query": "bob asks"})
    assert [t["query"] for t in (await store.history(session_id=alice)).turns] == ["alice asks"]
    assert [t["query"] for t in (await store.history(session_id=bob)).turns] == ["bob asks"]
    await store.clear(session_id=alice)
    assert (await store.history(session_id=alice)).turns == []
    assert len((await store.history(session_id=bob)).turns) == 1


async def test_context_expires_after_ttl_and_appends_slide_it(
    context_backend: ContextBackend,
) -> None:
    store = context_backend.make(
        ContextBounds(ttl_s=0.4, max_turns=5, max_turn_bytes=512, max_history_bytes=4_096)
    )
    sid = _sid()
    await store.append_turn(session_id=sid, turn={"n": 1})
    await context_backend.advance(0.25)
    await store.append_turn(session_id=sid, turn={"n": 2})  # restarts the TTL
    await context_backend.advance(0.25)
    assert [t["n"] for t in (await store.history(session_id=sid)).turns] == [1, 2]
    await context_backend.advance(0.6)
    assert (await store.history(session_id=sid)).turns == []


async def test_oversize_turn_is_truncated_within_the_byte_cap(
    context_backend: ContextBackend,
) -> None:
    store = context_backend.make(BOUNDS)
    sid = _sid()
    result = await store.append_turn(session_id=sid, turn={"role": "user", "content": "é" * 2_000})
    assert result.stored and result.truncated
    [turn] = (await store.history(session_id=sid)).turns
    assert turn["role"] == "user" and turn["content"].endswith(TRUNCATION_MARK)
    assert len(turn["content"]) > 200  # cut by the excess only, not emptied
    assert len(json.dumps(turn, ensure_ascii=False, separators=(",", ":")).encode()) <= 512


async def test_turn_that_cannot_fit_is_refused(context_backend: ContextBackend) -> None:
    store = context_backend.make(BOUNDS)
    sid = _sid()
    result = await store.append_turn(session_id=sid, turn={"numbers": list(range(1_000))})
    assert not result.stored and not result.degraded
    assert (await store.history(session_id=sid)).turns == []


async def test_history_is_bounded_in_bytes_keeping_the_newest(
    context_backend: ContextBackend,
) -> None:
    store = context_backend.make(
        ContextBounds(ttl_s=60, max_turns=20, max_turn_bytes=512, max_history_bytes=1_000)
    )
    sid = _sid()
    for n in range(10):
        await store.append_turn(session_id=sid, turn={"n": n, "text": "x" * 300})
    turns = (await store.history(session_id=sid)).turns
    assert [t["n"] for t in turns] == [7, 8, 9]  # three turns of ~320 bytes fit in 1000


async def test_ping_answers(context_backend: ContextBackend) -> None:
    store = context_backend.make(BOUNDS)
    assert await store.ping()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # nothing listens once the probe socket is closed


async def test_redis_down_degrades_to_no_history_without_raising() -> None:
    store = RedisContextStore.from_url(
        f"redis://127.0.0.1:{_closed_port()}/0", bounds=BOUNDS, socket_timeout_s=0.5
    )
    try:
        appended = await store.append_turn(session_id="s", turn={"query": "q"})
        assert not appended.stored and appended.degraded
        history = await store.history(session_id="s")
        assert history.turns == [] and history.degraded
        await store.clear(session_id="s")
        assert not await store.ping()
    finally:
        await store.aclose()
