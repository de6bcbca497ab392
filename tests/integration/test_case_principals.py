"""Principals never meet through the case library, end to end with two tokens.

Alice asks a question holding a unique marker, finds the answer useful (a case of hers), and asks a
similar question: her case comes back as a clue. Bob then asks that same similar question, and runs
an AIOps scan: neither her marker, her case id nor her run id appears in his stream, his trace, his
stored rows or any model request of his. The LLM analyst runs through the real ChatOpenAI against
the scripted server, so every request body the model received can be searched.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi import FastAPI

from api.app import create_app
from api.settings import Settings
from tests.integration.test_prompt_injection import DRAFT, HOSTILE_WORLD, PLAN
from tests.support.app_state import services_of
from tests.support.live_server import live_server
from tests.support.scripted_llm import ScriptedLLM, ToolCall

pytestmark = pytest.mark.llm

TOKENS = "alice:alice-token-123,bob:bob-token-4567"
ALICE = {"Authorization": "Bearer alice-token-123"}
BOB = {"Authorization": "Bearer bob-token-4567"}
SIMILAR = "why is billing failing right now?"


@pytest.fixture
async def served(llm: ScriptedLLM, tmp_path: Path) -> AsyncIterator[tuple[FastAPI, str]]:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'principals.db'}",
        world_dir=HOSTILE_WORLD,
        api_tokens=TOKENS,
        model={"base_url": llm.base_url, "name": "scripted", "api_key": "test", "max_retries": 0},
    )
    app = create_app(settings)
    async with live_server(app) as url:
        yield app, url


async def _chat(url: str, headers: dict[str, str], session_id: str, query: str) -> tuple[str, str, str]:
    """One chat run: (raw stream text, run id, raw trace response text)."""
    async with httpx.AsyncClient(base_url=url, timeout=30, headers=headers) as client:
        body = {"sessionId": session_id, "query": query}
        async with client.stream("POST", "/api/chat", json=body) as response:
            assert response.status_code == 200
            wire = b"".join([chunk async for chunk in response.aiter_raw()]).decode()
        run_id = wire.split('"run_id":"', 1)[1].split('"', 1)[0]
        trace = await client.get(f"/api/diagnosis/{session_id}/trace", params={"runId": run_id})
        assert trace.status_code == 200
    return wire, run_id, trace.text


async def _stored_rows(app: FastAPI, session_id: str) -> str:
    """Every stored row of one session (session, runs, steps, tool calls), as text."""
    rows: list[Any] = []
    async with services_of(app).engine.connect() as conn:
        for table in ("chat_session", "diagnosis_run", "agent_step", "tool_invocation"):
            query = sa.text(f"SELECT * FROM {table} WHERE session_id = :sid")  # fixed names only
            rows.extend(dict(row._mapping) for row in await conn.execute(query, {"sid": session_id}))
    assert rows
    return json.dumps(rows, default=str, ensure_ascii=False)


async def _alices_case(llm: ScriptedLLM, url: str, marker: str) -> tuple[str, str]:
    """Alice's useful diagnosis of a question holding `marker`: (her run id, her case id)."""
    llm.script("Plan", ToolCall(PLAN))
    llm.script("Draft", ToolCall(DRAFT))
    wire, run_id, _ = await _chat(url, ALICE, "alice-s", f"why is billing failing? {marker}")
    assert '"outcome":"SUCCESS"' in wire
    async with httpx.AsyncClient(base_url=url, timeout=30, headers=ALICE) as client:
        body = {"sessionId": "alice-s", "runId": run_id, "useful": True}
        feedback = await client.post("/api/feedback", json=body)
    assert feedback.status_code == 200
    case_id = feedback.json()["data"]["caseId"]
    assert case_id
    return run_id, case_id


def _requests_text(llm: ScriptedLLM, since: int) -> str:
    return json.dumps(llm.requests[since:], ensure_ascii=False)


async def test_alices_case_reaches_her_later_run_but_nothing_of_it_reaches_bob(
    llm: ScriptedLLM, served: tuple[FastAPI, str]
) -> None:
    app, url = served
    marker = f"zq{uuid.uuid4().hex[:12]}"
    alice_run, case_id = await _alices_case(llm, url, marker)

    # Alice's similar question: her own case is a clue in her evidence and in her model requests.
    llm.script("Plan", ToolCall(PLAN))
    llm.script("Draft", ToolCall(DRAFT))
    before = len(llm.requests)
    _, _, alice_trace = await _chat(url, ALICE, "alice-s", SIMILAR)
    assert case_id in alice_trace
    assert marker in _requests_text(llm, before) and case_id in _requests_text(llm, before)

    # Bob asks exactly that question: the case store and the shared evidence cache both had it.
    llm.script("Plan", ToolCall(PLAN))
    llm.script("Draft", ToolCall(DRAFT))
    before = len(llm.requests)
    bob_wire, _, bob_trace = await _chat(url, BOB, "bob-s", SIMILAR)
    bob_model = _requests_text(llm, before)
    assert len(llm.requests) - before == 2  # his Plan and Draft requests were captured
    calls = json.loads(bob_trace)["data"]["toolInvocations"]
    searched = [t["status"] for t in calls if t["tool"] == "search_cases"]
    assert searched == ["EMPTY"]  # he searched the case library, and found nothing of hers
    for text in (bob_wire, bob_trace, await _stored_rows(app, "bob-s"), bob_model):
        for secret in (marker, case_id, alice_run):
            assert secret not in text
    assert llm.unscripted == 0


async def test_bobs_aiops_scan_never_sees_alices_case(llm: ScriptedLLM, served: tuple[FastAPI, str]) -> None:
    app, url = served
    marker = f"zq{uuid.uuid4().hex[:12]}"
    alice_run, case_id = await _alices_case(llm, url, marker)
    # The scan's question ("Alert ... is firing on billing") shares words with alice's case. Its
    # model steps are not scripted: they fail and degrade to the rules, but every request is kept.
    before = len(llm.requests)
    async with httpx.AsyncClient(base_url=url, timeout=60, headers=BOB) as client:
        async with client.stream("POST", "/api/ai_ops", json={"sessionId": "bob-ops"}) as response:
            assert response.status_code == 200
            wire = b"".join([chunk async for chunk in response.aiter_raw()]).decode()
        [run] = (await client.get("/api/chat/session/bob-ops/runs")).json()["data"]
        trace = await client.get("/api/diagnosis/bob-ops/trace", params={"runId": run["runId"]})
    assert trace.status_code == 200 and '"search_cases"' in trace.text
    assert len(llm.requests) > before
    for text in (wire, trace.text, await _stored_rows(app, "bob-ops"), _requests_text(llm, before)):
        for secret in (marker, case_id, alice_run):
            assert secret not in text
