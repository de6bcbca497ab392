"""POST /api/feedback: bound to one run of one session; useful feedback grows the case library."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.support.app_state import count_rows, services_of
from tests.support.sse import only, post_stream


async def _run(client: httpx.AsyncClient, session_id: str, query: str) -> str:
    frames = await post_stream(client, "/api/chat", {"sessionId": session_id, "query": query})
    run_id: str = only(frames, "metadata")["run_id"]
    return run_id


async def test_feedback_without_run_id_is_rejected(client: httpx.AsyncClient) -> None:
    await _run(client, "fb-1", "hello")
    response = await client.post("/api/feedback", json={"sessionId": "fb-1", "useful": True})
    assert response.status_code == 422
    assert response.json()["code"] == "VALIDATION_ERROR"


async def test_feedback_with_another_sessions_run_changes_neither(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    run_a = await _run(client, "fb-a", "why is checkout slow?")
    run_b = await _run(client, "fb-b", "hello")
    response = await client.post("/api/feedback", json={"sessionId": "fb-b", "runId": run_a, "useful": True})
    assert response.status_code == 404
    for session, run in (("fb-a", run_a), ("fb-b", run_b)):
        trace = (await client.get(f"/api/diagnosis/{session}/trace", params={"runId": run})).json()
        assert trace["data"]["feedback"] is None
    assert await count_rows(app, "case_library") == 0


async def test_useful_feedback_creates_then_reuses_a_case_of_that_run(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    run_id = await _run(client, "fb-c", "why is checkout slow?")
    first = await client.post(
        "/api/feedback",
        json={"sessionId": "fb-c", "runId": run_id, "useful": True, "comment": "spot on"},
    )
    assert first.status_code == 200
    body = first.json()["data"]
    assert body["runId"] == run_id and body["caseId"]
    second = await client.post("/api/feedback", json={"sessionId": "fb-c", "runId": run_id, "useful": True})
    assert second.json()["data"]["caseId"] == body["caseId"]
    assert await count_rows(app, "case_library") == 1
    cases = await services_of(app).runs.similar_cases(query="checkout slow", limit=5, principal=None)
    assert [c.diagnosis_id for c in cases] == [run_id]
    trace = (await client.get("/api/diagnosis/fb-c/trace", params={"runId": run_id})).json()
    assert trace["data"]["feedback"]["useful"] is True


async def test_not_useful_feedback_creates_no_case(app: FastAPI, client: httpx.AsyncClient) -> None:
    run_id = await _run(client, "fb-d", "why is checkout slow?")
    response = await client.post(
        "/api/feedback", json={"sessionId": "fb-d", "runId": run_id, "useful": False}
    )
    assert response.status_code == 200 and response.json()["data"]["caseId"] is None
    assert await count_rows(app, "case_library") == 0


async def test_past_case_appears_as_a_clue_in_a_later_similar_run(client: httpx.AsyncClient) -> None:
    run_id = await _run(client, "fb-e", "why is checkout slow?")
    await client.post("/api/feedback", json={"sessionId": "fb-e", "runId": run_id, "useful": True})
    later = await post_stream(client, "/api/chat", {"query": "why is checkout slow today?"})
    evidence = only(later, "content")["payload"]["evidence"]
    cases = [e for e in evidence if e["source"] == "cases"]
    assert cases and cases[0]["status"] == "OK"


async def test_case_keeps_the_reports_root_cause_service_and_category(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    run_id = await _run(client, "fb-f", "why is checkout slow?")
    await client.post("/api/feedback", json={"sessionId": "fb-f", "runId": run_id, "useful": True})
    [case] = await services_of(app).runs.similar_cases(query="why is checkout slow", limit=1, principal=None)
    assert (case.root_cause_service, case.category) == ("payment", "connection_pool_exhaustion")
