"""Bounding of session-context turns and histories, and the in-process store's LRU."""

from __future__ import annotations

import json

from persistence.sessions import (
    TRUNCATION_MARK,
    ContextBounds,
    InProcessContextStore,
    encode_turn,
    newest_within,
)


def test_small_turn_is_encoded_unchanged() -> None:
    text, truncated = encode_turn({"q": "hi"}, 100)
    assert text is not None and json.loads(text) == {"q": "hi"} and not truncated


def test_longest_text_field_is_cut_first() -> None:
    text, truncated = encode_turn({"query": "short", "answer": "a" * 500}, 200)
    assert text is not None and truncated and len(text.encode()) <= 200
    turn = json.loads(text)
    assert turn["query"] == "short" and turn["answer"].endswith(TRUNCATION_MARK)


def test_multibyte_text_is_cut_on_a_character_boundary() -> None:
    text, _ = encode_turn({"answer": "日本語" * 100}, 120)
    assert text is not None and len(text.encode()) <= 120
    assert "\ufffd" not in json.loads(text)["answer"]


def test_turn_without_text_to_cut_is_refused() -> None:
    assert encode_turn({"values": list(range(100))}, 50) == (None, False)


def test_history_keeps_newest_within_bytes_and_skips_corrupt_entries() -> None:
    encoded: list[str | bytes] = ['{"n":1}', "not json", '{"n":2}', b'{"n":3}']
    assert newest_within(encoded, 1_000) == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert newest_within(encoded, 14) == [{"n": 2}, {"n": 3}]


async def test_in_process_store_evicts_the_least_recent_session() -> None:
    bounds = ContextBounds(ttl_s=60, max_turns=3, max_turn_bytes=100, max_history_bytes=1_000)
    store = InProcessContextStore(bounds=bounds, max_sessions=2, clock=lambda: 0.0)
    await store.append_turn(session_id="a", turn={"n": 1})
    await store.append_turn(session_id="b", turn={"n": 2})
    await store.history(session_id="a")  # "a" is now the most recent
    await store.append_turn(session_id="c", turn={"n": 3})
    assert len(store) == 2
    assert (await store.history(session_id="b")).turns == []
    assert (await store.history(session_id="a")).turns == [{"n": 1}]
