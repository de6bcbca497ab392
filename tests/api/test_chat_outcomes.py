"""Fallback, technical failure and admission: what the stream and the run row show."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from api.composition import Services
from tests.api.conftest import MakeClient
from tests.support.app_state import count_rows
from tests.support.sse import events_of, only, post_stream

LEAKY = (
    "password=hunter2 while running SELECT card_number FROM payments WHERE 1=1; "
    'psycopg.OperationalError: FATAL: role "svc" does not exist at db.internal:5432'
)


class _ExplodingRun:
    async def result(self) -> Any:
        await asyncio.sleep(0)
        raise RuntimeError(LEAKY)

    def partial_trace(self) -> dict[str, Any]:
        return {"version": 1, "transitions": [], "termination_reason": "FAILED"}


class _ExplodingDiagnoser:
    def start(self, request: Any, *, observer: Any) -> _ExplodingRun:
        return _ExplodingRun()


async def test_budget_exhaustion_streams_the_fixed_fallback(make_client: MakeClient) -> None:
    async with make_client(chat={"max_tool_calls": 1}) as (_, client):
        frames = await post_stream(client, "/api/chat", {"query": "why is checkout slow?"})
        assert events_of(frames)[-2:] == ["content", "done"]
        assert only(frames, "done") == {"outcome": "FALLBACK"}
        payload = only(frames, "content")["payload"]
        assert payload["degraded"] is True
        assert payload.get("root_cause") is None
        meta = only(frames, "metadata")
        trace = (
            await client.get(f"/api/diagnosis/{meta['session_id']}/trace", params={"runId": meta["run_id"]})
        ).json()["data"]
        assert trace["run"]["status"] == "SUCCESS" and trace["run"]["outcome"] == "FALLBACK"
        orchestration = trace["run"]["orchestrationTrace"]
        assert orchestration["degraded"] is True
        assert orchestration["termination_reason"] == "BUDGET_EXHAUSTED"


async def test_technical_failure_streams_one_failure_and_no_content_or_secrets(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    services: Services = app.state.services
    monkeypatch.setattr(services.chat, "_diagnoser", _ExplodingDiagnoser())
    response = await client.post("/api/chat", json={"query": "why is checkout slow?"})
    wire = response.text
    for secret in ("hunter2", "SELECT", "card_number", "psycopg", "OperationalError", "db.internal"):
        assert secret not in wire
    frames = await post_stream(client, "/api/chat", {"query": "again"})
    assert events_of(frames) == ["metadata", "failure", "done"]
    assert only(frames, "failure") == {
        "code": "INTERNAL_ERROR",
        "message": "The diagnosis could not be completed.",
    }
    assert only(frames, "done") == {"outcome": "FAILED"}
    meta = only(frames, "metadata")
    trace = (
        await client.get(f"/api/diagnosis/{meta['session_id']}/trace", params={"runId": meta["run_id"]})
    ).json()["data"]
    assert trace["run"]["status"] == "FAILED" and trace["answer"] is None


async def test_full_worker_pool_answers_503_and_creates_no_run(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    services: Services = app.state.services
    permits = [services.admission.try_acquire() for _ in range(services.admission.capacity)]
    assert all(permits)
    response = await client.post("/api/chat", json={"query": "why is checkout slow?"})
    assert response.status_code == 503
    assert response.json() == {
        "code": "UNAVAILABLE",
        "message": "The service is busy; retry shortly.",
        "data": None,
    }
    assert response.headers["retry-after"] == "1"
    assert await count_rows(app, "diagnosis_run") == 0
    assert await count_rows(app, "chat_session") == 0
    for permit in permits:
        assert permit is not None
        permit.release()
    ok = await post_stream(client, "/api/chat", {"query": "hello"})
    assert events_of(ok)[-1] == "done"
    assert services.admission.in_use == 0


async def test_a_backlog_of_terminal_writes_answers_503_until_it_drains(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    # A database too slow for the outcomes of finished runs: their writes wait, new runs are refused.
    registry = app.state.services.chat.lifecycle
    slow_database = asyncio.Event()
    writes = []
    while not registry.backlogged:
        writes.append(asyncio.create_task(registry.durable(slow_database.wait())))
        await asyncio.sleep(0)
    response = await client.post("/api/chat", json={"query": "why is checkout slow?"})
    assert response.status_code == 503 and response.json()["code"] == "UNAVAILABLE"
    assert await count_rows(app, "diagnosis_run") == 0
    slow_database.set()
    await asyncio.gather(*writes)
    ok = await post_stream(client, "/api/chat", {"query": "hello"})
    assert events_of(ok)[-1] == "done"


async def test_chat_stream_endpoint_does_not_exist(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/chat_stream", json={"query": "hello"})
    assert response.status_code in (404, 405)
