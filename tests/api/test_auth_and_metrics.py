"""Bearer-token principals own their sessions; the service's own metrics are exposed."""

from __future__ import annotations

import httpx

from tests.api.conftest import MakeClient
from tests.support.sse import only, post_stream

ALICE = {"Authorization": "Bearer alice-token-123"}
BOB = {"Authorization": "Bearer bob-token-4567"}


async def test_tokens_guard_every_api_route_but_health(make_client: MakeClient) -> None:
    async with make_client(api_tokens="alice:alice-token-123,bob:bob-token-4567") as (_, client):
        assert (await client.get("/healthz")).status_code == 200
        for method, path in (
            ("POST", "/api/chat"),
            ("GET", "/api/chat/session/x/runs"),
            ("GET", "/api/diagnosis/x/trace?runId=r"),
            ("POST", "/api/feedback"),
            ("POST", "/api/ai_ops"),
        ):
            response = await client.request(method, path, json={"query": "hi"})
            assert response.status_code == 401, path
            assert response.json()["code"] == "AUTH_REQUIRED"
        wrong = await client.post(
            "/api/chat", json={"query": "hi"}, headers={"Authorization": "Bearer nope-nope-nope"}
        )
        assert wrong.status_code == 401


async def test_another_principal_gets_not_found_for_runs_trace_and_feedback(
    make_client: MakeClient,
) -> None:
    async with make_client(api_tokens="alice:alice-token-123,bob:bob-token-4567") as (_, client):
        client.headers.update(ALICE)
        frames = await post_stream(client, "/api/chat", {"sessionId": "alice-s", "query": "hello"})
        run_id = only(frames, "metadata")["run_id"]
        assert (await client.get("/api/chat/session/alice-s/runs")).status_code == 200

        bob = httpx.AsyncClient(transport=client._transport, base_url="http://test", headers=BOB)
        async with bob:
            assert (await bob.get("/api/chat/session/alice-s/runs")).status_code == 404
            trace = await bob.get("/api/diagnosis/alice-s/trace", params={"runId": run_id})
            assert trace.status_code == 404 and "hello" not in trace.text
            feedback = await bob.post(
                "/api/feedback", json={"sessionId": "alice-s", "runId": run_id, "useful": True}
            )
            assert feedback.status_code == 404
            hijack = await bob.post("/api/chat", json={"sessionId": "alice-s", "query": "mine now"})
            assert hijack.status_code == 404
        runs = (await client.get("/api/chat/session/alice-s/runs")).json()["data"]
        assert len(runs) == 1


async def test_metrics_count_runs_tools_and_rejections(client: httpx.AsyncClient) -> None:
    await post_stream(client, "/api/chat", {"query": "why is checkout slow?"})
    text = (await client.get("/metrics")).text
    assert 'superbiz_runs_total{flow="CHAT",outcome="SUCCESS",status="SUCCESS"} 1.0' in text
    assert "superbiz_tool_calls_total{" in text
    assert "superbiz_run_duration_seconds_count" in text
    assert "superbiz_active_streams 0.0" in text
