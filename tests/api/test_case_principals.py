"""Past cases stay with their principal: through the API, with the rule-based analyst and the demo world.

(The same with the LLM analyst, and its model requests searched: tests/integration/test_case_principals.py.)
"""

from __future__ import annotations

import json
import uuid

import httpx

from tests.api.conftest import MakeClient
from tests.support.sse import only, post_stream

TOKENS = "alice:alice-token-123,bob:bob-token-4567"
ALICE = {"Authorization": "Bearer alice-token-123"}
BOB = {"Authorization": "Bearer bob-token-4567"}
SIMILAR = "why is checkout slow?"


async def _chat(client: httpx.AsyncClient, session_id: str, query: str) -> tuple[str, str, list[str]]:
    """One chat run: (run id, stream and trace as text, statuses of its case searches)."""
    frames = await post_stream(client, "/api/chat", {"sessionId": session_id, "query": query})
    run_id = only(frames, "metadata")["run_id"]
    trace = await client.get(f"/api/diagnosis/{session_id}/trace", params={"runId": run_id})
    assert trace.status_code == 200
    calls = trace.json()["data"]["toolInvocations"]
    searches = [call["status"] for call in calls if call["tool"] == "search_cases"]
    return run_id, json.dumps(frames) + trace.text, searches


async def _useful_case(client: httpx.AsyncClient, session_id: str, query: str) -> tuple[str, str]:
    """A chat run found useful: (run id, case id)."""
    run_id, _, _ = await _chat(client, session_id, query)
    body = {"sessionId": session_id, "runId": run_id, "useful": True}
    case_id = (await client.post("/api/feedback", json=body)).json()["data"]["caseId"]
    assert case_id
    return run_id, case_id


async def test_bob_never_gets_alices_case_while_alice_does(make_client: MakeClient) -> None:
    marker = f"zq{uuid.uuid4().hex[:12]}"
    async with make_client(api_tokens=TOKENS) as (_, client):
        client.headers.update(ALICE)
        alice_run, case_id = await _useful_case(client, "alice-s", f"why is checkout slow? {marker}")
        client.headers.update(BOB)
        _, bobs, bob_searches = await _chat(client, "bob-s", SIMILAR)
        client.headers.update(ALICE)
        _, alices, alice_searches = await _chat(client, "alice-s", SIMILAR)

    assert bob_searches == ["EMPTY"]
    for secret in (marker, case_id, alice_run):
        assert secret not in bobs
    assert alice_searches == ["OK"] and case_id in alices


async def test_a_case_made_without_tokens_is_never_served_once_tokens_are_set(
    make_client: MakeClient,
) -> None:
    marker = f"zq{uuid.uuid4().hex[:12]}"
    async with make_client() as (_, client):  # no authentication: the shared library
        _, case_id = await _useful_case(client, "open-1", f"why is checkout slow? {marker}")
        _, shared, _ = await _chat(client, "open-2", SIMILAR)
    assert case_id in shared

    async with make_client(api_tokens=TOKENS) as (_, client):  # the same database, now with tokens
        client.headers.update(ALICE)
        _, alices, searches = await _chat(client, "alice-s", SIMILAR)
    assert searches == ["EMPTY"]
    assert marker not in alices and case_id not in alices
