"""The Investigations page against the real app: a chat run and a run Alertmanager started, listed
newest first with flow, question or alert group, outcome and root cause, each linked to its trace."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from playwright.async_api import Page, expect

from tests.support.alertmanager_payload import alert, notification
from tests.support.sse import only, post_stream

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_investigations_list_links_each_run_to_its_trace(page: Page, real_url: str) -> None:
    async with httpx.AsyncClient(base_url=real_url, timeout=30) as client:
        chat = only(await post_stream(client, "/api/chat", {"query": "why is checkout slow?"}), "metadata")
        body = notification([alert("HighErrorRate", "payment")], group_key="browser-investigations")
        ack = (await client.post("/api/alertmanager/webhook", json=body)).json()["data"]
        for _ in range(200):
            runs = (await client.get("/api/investigations")).json()["data"]
            if all(run["status"] != "RUNNING" for run in runs):
                break
            await asyncio.sleep(0.05)
    await page.goto(f"{real_url}/")
    await page.get_by_role("link", name="Investigations").click()
    table = page.locator("#investigations table")
    first = table.locator(f'tbody tr[data-run-id="{ack["runId"]}"]')
    await expect(first).to_contain_text("AIOps")
    await expect(first).to_contain_text("Alertmanager: HighErrorRate firing")
    await expect(first).to_contain_text("SUCCESS")
    second = table.locator(f'tbody tr[data-run-id="{chat["run_id"]}"]')
    await expect(second).to_contain_text("why is checkout slow?")
    assert await second.locator("td").nth(4).inner_text() not in ("", "—")  # its root cause
    rows = await table.locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.runId)")
    assert rows.index(ack["runId"]) < rows.index(chat["run_id"])  # newest first
    await second.get_by_role("link").click()
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
    await expect(page.locator("#summary")).to_contain_text(chat["run_id"])
