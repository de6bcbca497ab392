"""POST /api/ai_ops: legacy message frames, one AI_OPS run, its stored rule evaluation."""

from __future__ import annotations

import json
from typing import Any

import httpx
from httpx_sse import aconnect_sse


async def _frames(client: httpx.AsyncClient, body: Any = None) -> list[dict[str, Any]]:
    messages = []
    kwargs: dict[str, Any] = {} if body is None else {"json": body}
    async with aconnect_sse(client, "POST", "/api/ai_ops", **kwargs) as source:
        assert source.response.status_code == 200
        async for event in source.aiter_sse():
            assert event.event == "message"
            messages.append(json.loads(event.data))
    return messages


async def test_aiops_streams_metadata_then_content_then_done(client: httpx.AsyncClient) -> None:
    messages = await _frames(client)
    assert messages[0]["type"] == "metadata"
    assert set(messages[0]["data"]) == {"sessionId", "runId"}
    assert messages[-1] == {"type": "done"}
    contents = [m for m in messages if m["type"] == "content"]
    assert len(contents) >= 2
    groups = [m["data"]["group"] for m in contents if "group" in m["data"]]
    assert any(g["service"] == "payment" for g in groups)

    meta = messages[0]["data"]
    trace = (
        await client.get(f"/api/diagnosis/{meta['sessionId']}/trace", params={"runId": meta["runId"]})
    ).json()["data"]
    assert trace["run"]["agentFlow"] == "AI_OPS" and trace["run"]["status"] == "SUCCESS"
    evaluation = trace["selfEvaluation"]["aiops_rule_evaluation"]
    assert set(evaluation["checks"]) == {
        "every_alert_addressed",
        "each_group_under_its_own_identity",
        "root_causes_backed_by_evidence",
        "runbooks_cited",
        "no_unsupported_claims",
    }
    assert evaluation["checks"]["every_alert_addressed"] is True
    assert trace["run"]["toolCallCount"] == len(trace["toolInvocations"]) > 0


async def test_aiops_scoped_to_a_service_and_session(client: httpx.AsyncClient) -> None:
    messages = await _frames(client, {"sessionId": "ops-1", "services": ["report-batch"]})
    assert messages[0]["data"]["sessionId"] == "ops-1"
    groups = [m["data"]["group"] for m in messages if m["type"] == "content" and "group" in m["data"]]
    assert groups and {g["service"] for g in groups} == {"report-batch"}


async def test_aiops_rejects_a_malformed_body(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/ai_ops", json={"services": "not-a-list"})
    assert response.status_code == 422
