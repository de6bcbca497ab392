"""Alertmanager's webhook starts AIOps runs: stored and traced, deduplicated, bounded, authenticated;
the Investigations list shows the principal's runs; the report is posted to an outgoing webhook."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from persistence.db import upgrade_head
from tests.api.conftest import MakeClient
from tests.conftest import require_service_url
from tests.support.alertmanager_payload import alert, notification
from tests.support.live_server import live_server
from tests.support.postgres import fresh_database
from tests.support.sse import post_stream

HOOK = {"Authorization": "Bearer hook-token-123"}
ALICE = {"Authorization": "Bearer alice-token-123"}
BOB = {"Authorization": "Bearer bob-token-4567"}
TOKENS = "alice:alice-token-123,bob:bob-token-4567"
WEBHOOK = {"token": "hook-token-123", "principal": "alice"}


async def finished_trace(client: httpx.AsyncClient, session_id: str, run_id: str) -> dict[str, Any]:
    for _ in range(400):
        response = await client.get(
            f"/api/diagnosis/{session_id}/trace", params={"runId": run_id}, headers=ALICE
        )
        data: dict[str, Any] = response.json()["data"]
        if data["run"]["status"] != "RUNNING":
            return data
        await asyncio.sleep(0.05)
    raise AssertionError("the webhook run did not finish")


async def test_a_notification_group_starts_one_traced_aiops_run(make_client: MakeClient) -> None:
    async with make_client(api_tokens=TOKENS, alert_webhook=WEBHOOK) as (_, client):
        body = notification([alert("HighErrorRate", "payment")])
        response = await client.post("/api/alertmanager/webhook", json=body, headers=HOOK)
        assert response.status_code == 202, response.text
        ack = response.json()["data"]
        assert ack["accepted"] is True and ack["reason"] is None
        trace = await finished_trace(client, ack["sessionId"], ack["runId"])
        assert trace["run"]["agentFlow"] == "AI_OPS" and trace["run"]["status"] == "SUCCESS"
        assert "HighErrorRate" in trace["run"]["query"]
        assert trace["toolInvocations"] and trace["steps"]
        assert "HighErrorRate" in trace["answer"]["payload"]["summary"]  # scoped to the group's alert

        again = (await client.post("/api/alertmanager/webhook", json=body, headers=HOOK)).json()["data"]
        assert again == {**ack, "accepted": False, "reason": "DUPLICATE"}
        resolved = notification([alert("HighErrorRate", "payment", status="resolved")], status="resolved")
        ignored = await client.post("/api/alertmanager/webhook", json=resolved, headers=HOOK)
        assert ignored.status_code == 202 and ignored.json()["data"]["reason"] == "RESOLVED_ONLY"

        mine = (await client.get("/api/investigations", headers=ALICE)).json()["data"]
        assert [item["runId"] for item in mine] == [ack["runId"]]
        assert mine[0]["agentFlow"] == "AI_OPS" and mine[0]["outcome"] == "SUCCESS" and mine[0]["rootCause"]
        assert (await client.get("/api/investigations", headers=BOB)).json()["data"] == []
        assert (await client.get("/api/investigations?limit=1000", headers=ALICE)).status_code == 422


async def test_webhook_token_queue_bound_and_version(make_client: MakeClient) -> None:
    webhook = {**WEBHOOK, "max_in_flight": 1}
    async with make_client(api_tokens=TOKENS, alert_webhook=webhook) as (_, client):
        body = notification([alert("HighErrorRate", "payment")])
        for headers in ({}, ALICE, {"Authorization": "Bearer wrong-token-000"}):
            refused = await client.post("/api/alertmanager/webhook", json=body, headers=headers)
            assert refused.status_code == 401 and refused.json()["code"] == "AUTH_REQUIRED"
        old = await client.post("/api/alertmanager/webhook", json={**body, "version": "3"}, headers=HOOK)
        assert old.status_code == 422
        first, second = await asyncio.gather(
            client.post("/api/alertmanager/webhook", json=body, headers=HOOK),
            client.post(
                "/api/alertmanager/webhook",
                json=notification([alert("HighLatencyP99", "payment", fingerprint="f2")], group_key="g2"),
                headers=HOOK,
            ),
        )
        # 503: Alertmanager retries a 5xx answer and drops a 4xx one.
        assert sorted([first.status_code, second.status_code]) == [202, 503]
        full = first if first.status_code == 503 else second
        assert full.json()["code"] == "WEBHOOK_QUEUE_FULL" and full.headers["retry-after"] == "1"
    async with make_client(api_tokens=TOKENS) as (_, client):  # no webhook token: closed
        assert (await client.post("/api/alertmanager/webhook", json=body, headers=HOOK)).status_code == 401


async def test_the_finished_report_is_posted_with_retries(make_client: MakeClient) -> None:
    received: list[dict[str, Any]] = []

    async def incoming(request: Request) -> JSONResponse:
        received.append(await request.json())
        return JSONResponse({"ok": len(received) > 1}, status_code=200 if len(received) > 1 else 503)

    chat_app = Starlette(routes=[Route("/hook", incoming, methods=["POST"])])
    async with live_server(chat_app) as url:
        webhook = {**WEBHOOK, "notify_url": f"{url}/hook"}
        async with make_client(api_tokens=TOKENS, alert_webhook=webhook) as (_, client):
            body = notification([alert("HighErrorRate", "payment")])
            ack = (await client.post("/api/alertmanager/webhook", json=body, headers=HOOK)).json()["data"]
            await finished_trace(client, ack["sessionId"], ack["runId"])
            for _ in range(100):
                if len(received) >= 2:
                    break
                await asyncio.sleep(0.05)
    assert len(received) == 2 and received[0] == received[1]  # one failed attempt, one retry
    text = received[1]["text"]
    assert text.startswith("*SuperBiz investigation*: Alertmanager: HighErrorRate firing")
    assert "## HighErrorRate" in text and "# Diagnosis report" in text


@pytest.mark.postgres
async def test_investigations_list_on_postgresql(make_client: MakeClient) -> None:
    with fresh_database(require_service_url("SUPERBIZ_TEST_PG_URL"), "superbiz_investigations") as url:
        await asyncio.to_thread(upgrade_head, url)
        async with make_client(database_url=url, api_tokens=TOKENS, alert_webhook=WEBHOOK) as (_, client):
            body = notification([alert("HighErrorRate", "payment")])
            ack = (await client.post("/api/alertmanager/webhook", json=body, headers=HOOK)).json()["data"]
            await finished_trace(client, ack["sessionId"], ack["runId"])
            client.headers.update(BOB)
            await post_stream(client, "/api/chat", {"query": "why is checkout slow?"})
            mine = (await client.get("/api/investigations", headers=ALICE)).json()["data"]
            bobs = (await client.get("/api/investigations", headers=BOB)).json()["data"]
    assert [item["runId"] for item in mine] == [ack["runId"]]
    assert len(bobs) == 1 and bobs[0]["agentFlow"] == "CHAT" and bobs[0]["rootCause"]


async def test_a_notification_is_read_up_to_max_alerts(make_client: MakeClient) -> None:
    async with make_client(api_tokens=TOKENS, alert_webhook={**WEBHOOK, "max_alerts": 1}) as (_, client):
        alerts = [alert("HighErrorRate", "payment"), alert("HighLatencyP99", "payment", fingerprint="f2")]
        ack = (
            await client.post("/api/alertmanager/webhook", json=notification(alerts), headers=HOOK)
        ).json()["data"]
        trace = await finished_trace(client, ack["sessionId"], ack["runId"])
    assert "Alertmanager: HighErrorRate firing (1 alert(s)" in trace["run"]["query"]
