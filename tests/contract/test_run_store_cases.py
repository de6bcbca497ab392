"""Run-store contract, case library: a past case is served only to the principal that owns it.

Same behaviour on SQLite and PostgreSQL (the `run_store` fixture of this folder). Every question
carries a fresh marker word and lookups ask for the marker alone: cases of other tests sharing the
PostgreSQL database never match it.
"""

from __future__ import annotations

import uuid

import pytest

from persistence import cases as case_module
from persistence.runs import RunStore
from persistence.tables import RunOutcome, RunStatus

ANSWER = {
    "content_type": "diagnosis_report",
    "payload": {"root_cause": {"service": "checkout", "category": "database"}},
}


async def _case(store: RunStore, *, principal: str | None, query: str) -> tuple[str, str]:
    """A useful SUCCESS run of a fresh session of `principal`, and the case it grew: (run id, case id)."""
    sid = f"sess-{uuid.uuid4().hex}"
    run = await store.open_run(session_id=sid, query=query, principal=principal)
    assert await store.finish_run(
        run_id=run.run_id, status=RunStatus.SUCCESS, outcome=RunOutcome.SUCCESS, answer=ANSWER
    )
    await store.bind_feedback(session_id=sid, run_id=run.run_id, useful=True)
    case = await store.create_or_reuse_case(run_id=run.run_id)
    assert case is not None
    return run.run_id, case.case_id


def _marker() -> str:
    return f"zq{uuid.uuid4().hex[:12]}"


async def _ids(store: RunStore, query: str, principal: str | None) -> list[str]:
    return [c.case_id for c in await store.similar_cases(query=query, limit=10, principal=principal)]


async def test_a_principals_case_is_never_found_by_another_principal_or_by_none(
    run_store: RunStore,
) -> None:
    marker = _marker()
    question = f"why is checkout slow {marker}"
    alice_run, alice_case = await _case(run_store, principal="alice", query=question)

    for stranger in ("bob", None):
        assert await _ids(run_store, marker, stranger) == [], stranger
        assert alice_case not in await _ids(run_store, question, stranger), stranger
    [mine] = await run_store.similar_cases(query=marker, limit=10, principal="alice")
    assert (mine.case_id, mine.diagnosis_id, mine.query) == (alice_case, alice_run, question)


async def test_identical_questions_of_two_principals_each_find_only_their_own_case(
    run_store: RunStore,
) -> None:
    marker = _marker()
    question = f"why is checkout slow {marker}"
    _, alice_case = await _case(run_store, principal="alice", query=question)
    _, bob_case = await _case(run_store, principal="bob", query=question)

    assert await _ids(run_store, marker, "alice") == [alice_case]
    assert await _ids(run_store, marker, "bob") == [bob_case]


async def test_a_case_made_without_a_principal_is_served_only_to_callers_without_one(
    run_store: RunStore,
) -> None:
    marker = _marker()
    _, shared_case = await _case(run_store, principal=None, query=f"why is checkout slow {marker}")

    assert await _ids(run_store, marker, None) == [shared_case]
    for named in ("alice", "bob", ""):
        assert await _ids(run_store, marker, named) == [], named


async def test_reusing_a_case_keeps_it_with_the_owner_of_the_run(run_store: RunStore) -> None:
    marker = _marker()
    run_id, case_id = await _case(run_store, principal="alice", query=f"why is checkout slow {marker}")
    again = await run_store.create_or_reuse_case(run_id=run_id)
    assert again is not None and (again.case_id, again.created, again.use_count) == (case_id, False, 2)
    assert await _ids(run_store, marker, "bob") == []
    assert await _ids(run_store, marker, "alice") == [case_id]


async def test_another_principals_newer_cases_never_crowd_out_the_callers_candidates(
    run_store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The owner filter applies before the bounded candidate window, not after it."""
    marker = _marker()
    _, alice_case = await _case(run_store, principal="alice", query=f"why is checkout slow {marker}")
    monkeypatch.setattr(case_module, "_CASE_CANDIDATES", 2)
    for _ in range(3):  # newer than alice's, and enough to fill the whole window
        await _case(run_store, principal="bob", query=f"why is checkout slow {marker}")
    assert await _ids(run_store, marker, "alice") == [alice_case]
