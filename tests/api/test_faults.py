"""Dependency faults: Redis down degrades history only; PostgreSQL down answers 503 and writes nothing."""

from __future__ import annotations

from pathlib import Path

from tests.api.conftest import MakeClient
from tests.support.sse import only, post_stream


async def test_redis_down_chat_works_without_history_and_the_run_records_it(
    make_client: MakeClient,
) -> None:
    async with make_client(redis_url="redis://127.0.0.1:1/0", redis={"socket_timeout_s": 0.5}) as (
        _,
        client,
    ):
        ready = (await client.get("/readyz")).json()["data"]["checks"]["session_context"]
        assert ready["status"] == "degraded" and ready["backend"] == "redis"
        frames = await post_stream(
            client, "/api/chat", {"sessionId": "r-down", "query": "why is checkout slow?"}
        )
        assert only(frames, "done") == {"outcome": "SUCCESS"}
        meta = only(frames, "metadata")
        trace = (await client.get("/api/diagnosis/r-down/trace", params={"runId": meta["run_id"]})).json()
        assert trace["data"]["selfEvaluation"]["history_degraded"] is True


async def test_postgres_down_new_chats_get_503_and_nothing_is_written(
    make_client: MakeClient, tmp_path: Path
) -> None:
    async with make_client(
        database_url="postgresql+psycopg://postgres@127.0.0.1:1/nowhere",
        database={"pool_timeout_s": 1.0},
    ) as (_, client):
        ready = await client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["data"]["checks"]["database"]["status"] == "down"
        response = await client.post("/api/chat", json={"query": "why is checkout slow?"})
        assert response.status_code == 503
        assert response.json()["code"] == "UNAVAILABLE"
        assert "psycopg" not in response.text and "5432" not in response.text
