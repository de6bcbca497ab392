"""POST /api/chat: the SSE protocol, run isolation and what reaches the wire (spec scenarios)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.support.app_state import count_rows, services_of
from tests.support.sse import events_of, only, post_stream
from tests.support.stored_rows import add_session_without_runs


@pytest.mark.parametrize(
    "body",
    [
        {"query": ""},
        {"query": "   \n\t "},
        {},
        {"sessionId": "x", "query": None},
        {"query": "why?", "sessionId": "bad id with spaces"},
    ],
)
async def test_invalid_request_creates_no_session_and_no_run(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, Any]
) -> None:
    response = await client.post("/api/chat", json=body)
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["code"] == "VALIDATION_ERROR"
    assert await count_rows(app, "diagnosis_run") == 0
    assert await count_rows(app, "chat_session") == 0


async def test_bad_json_is_a_4xx_without_a_run(app: FastAPI, client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/chat", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert await count_rows(app, "diagnosis_run") == 0


async def test_success_streams_metadata_statuses_one_content_and_done(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    frames = await post_stream(client, "/api/chat", {"query": "why is checkout slow?"})
    names = events_of(frames)
    assert names[0] == "metadata" and names[-2:] == ["content", "done"]
    assert set(names[1:-2]) <= {"status"} and len(names) > 3
    meta = only(frames, "metadata")
    assert set(meta) == {"session_id", "run_id"}
    assert only(frames, "done") == {"outcome": "SUCCESS"}
    content = only(frames, "content")
    assert content["content_type"] == "diagnosis_report"
    assert content["payload"]["root_cause"]["service"] == "payment"
    for _, status in [f for f in frames if f[0] == "status"]:
        assert set(status) == {"code", "message"}

    trace = await client.get(f"/api/diagnosis/{meta['session_id']}/trace", params={"runId": meta["run_id"]})
    run = trace.json()["data"]["run"]
    assert run["runId"] == meta["run_id"] and run["sessionId"] == meta["session_id"]
    assert run["status"] == "SUCCESS" and run["outcome"] == "SUCCESS"
    assert trace.json()["data"]["answer"]["payload"] == content["payload"]


async def test_legacy_spellings_are_accepted(client: httpx.AsyncClient) -> None:
    frames = await post_stream(client, "/api/chat", {"Id": "legacy-1", "Question": "hello"})
    assert only(frames, "metadata")["session_id"] == "legacy-1"
    assert events_of(frames)[-1] == "done"


async def test_two_requests_in_one_session_make_two_isolated_runs(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    first = await post_stream(client, "/api/chat", {"sessionId": "sess-a", "query": "why is checkout slow?"})
    second = await post_stream(
        client, "/api/chat", {"sessionId": "sess-a", "query": "and what about inventory?"}
    )
    run_a = only(first, "metadata")["run_id"]
    run_b = only(second, "metadata")["run_id"]
    assert run_a != run_b

    runs = (await client.get("/api/chat/session/sess-a/runs")).json()["data"]
    assert {r["runId"] for r in runs} == {run_a, run_b}
    for summary in runs:
        assert "steps" not in summary and "toolInvocations" not in summary
        trace = (await client.get("/api/diagnosis/sess-a/trace", params={"runId": summary["runId"]})).json()[
            "data"
        ]
        assert trace["run"]["stepCount"] == len(trace["steps"]) > 0
        assert trace["run"]["toolCallCount"] == len(trace["toolInvocations"])
    services = services_of(app)
    history = await services.contexts.history(session_id="sess-a")
    assert [t["query"] for t in history.turns] == ["why is checkout slow?", "and what about inventory?"]
    session = await services.runs.get_session(session_id="sess-a")
    assert session is not None and session.message_pair_count == 2


async def test_long_report_is_one_content_event(client: httpx.AsyncClient) -> None:
    frames = await post_stream(client, "/api/chat", {"query": "why is checkout slow? " * 50})
    content = [data for name, data in frames if name == "content"]
    assert len(content) == 1
    assert len(json.dumps(content[0])) > 1_000


async def test_trace_requires_run_id(client: httpx.AsyncClient) -> None:
    frames = await post_stream(client, "/api/chat", {"sessionId": "t-1", "query": "hello"})
    assert events_of(frames)[-1] == "done"
    response = await client.get("/api/diagnosis/t-1/trace")
    assert response.status_code == 422
    assert response.json()["code"] == "VALIDATION_ERROR"


async def test_trace_of_another_sessions_run_leaks_nothing(client: httpx.AsyncClient) -> None:
    a = await post_stream(client, "/api/chat", {"sessionId": "owner-a", "query": "why is checkout slow?"})
    await post_stream(client, "/api/chat", {"sessionId": "owner-b", "query": "hello"})
    run_a = only(a, "metadata")["run_id"]
    response = await client.get("/api/diagnosis/owner-b/trace", params={"runId": run_a})
    assert response.status_code == 404
    assert response.json()["data"] is None
    assert "payment" not in response.text and "checkout" not in response.text


async def test_runs_of_unknown_session_is_not_found(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/chat/session/nobody-here/runs")
    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"


async def test_runs_of_session_without_runs_is_an_empty_list(app: FastAPI, client: httpx.AsyncClient) -> None:
    async with services_of(app).engine.begin() as conn:
        await add_session_without_runs(conn, "empty-one")
    response = await client.get("/api/chat/session/empty-one/runs")
    assert response.status_code == 200
    assert response.json()["data"] == []


async def test_trace_carries_orchestration_only_on_run_and_null_where_there_is_none(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    frames = await post_stream(client, "/api/chat", {"sessionId": "orch-1", "query": "why is checkout slow?"})
    run_id = only(frames, "metadata")["run_id"]
    body = (await client.get("/api/diagnosis/orch-1/trace", params={"runId": run_id})).json()["data"]
    orchestration = body["run"]["orchestrationTrace"]
    assert isinstance(orchestration, dict) and orchestration["final_node"] == "composer"
    assert set(body) == {"session", "run", "steps", "toolInvocations", "selfEvaluation", "answer", "feedback"}
    without_run = {k: v for k, v in body.items() if k != "run"}
    assert "transitions" not in json.dumps(without_run)

    # A run that never reached the graph (still RUNNING here) has no trace, and none is synthesised.
    services = services_of(app)
    pending = await services.runs.open_run(session_id="orch-1", query="queued")
    body = (await client.get("/api/diagnosis/orch-1/trace", params={"runId": pending.run_id})).json()["data"]
    assert body["run"]["orchestrationTrace"] is None
    assert body["run"]["status"] == "RUNNING"
