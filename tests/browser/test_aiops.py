"""The AIOps view: start a scan, watch the report stream in, open its trace."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.support.fake_api import ChatScript, FakeApi, frame

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_scan_streams_report_and_links_trace(page: Page, fake: FakeApi, base_url: str) -> None:
    await page.goto(f"{base_url}/aiops.html")
    await page.fill("#services", "checkout, payments")
    await page.click("#start-scan")
    await expect(page.locator("#scan-state")).to_contain_text("Scan complete")
    await expect(page.locator("#scan-output")).to_contain_text("Scanning 3 firing alerts")
    await expect(page.locator("#scan-output .report")).to_have_count(1)
    assert fake.aiops_requests == [{"services": ["checkout", "payments"]}]
    await page.click("#scan-links a.trace-link")
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
    await expect(page.locator("#summary")).to_contain_text("AI_OPS")


def _broken(after_metadata: list[str]) -> ChatScript:
    def script(session_id: str, run_id: str) -> list[str]:
        ids = {"sessionId": session_id, "runId": run_id}
        return [frame("message", {"type": "metadata", "data": ids}), *after_metadata]

    return script


async def test_scan_error_message_is_shown(page: Page, fake: FakeApi, base_url: str) -> None:
    fake.aiops_scripts.append(
        _broken([frame("message", {"type": "error", "data": "Alert source unavailable"})])
    )
    await page.goto(f"{base_url}/aiops.html")
    await page.click("#start-scan")
    await expect(page.locator("#scan-state")).to_contain_text("Scan failed Alert source unavailable")
    await expect(page.locator("#scan-links a.trace-link")).to_have_count(1)


async def test_scan_protocol_violation_discards_streamed_report(
    page: Page, fake: FakeApi, base_url: str
) -> None:
    streamed = frame("message", {"type": "content", "data": "partial line"})
    fake.aiops_scripts.append(_broken([streamed, frame("status", {"code": "X"})]))
    await page.goto(f"{base_url}/aiops.html")
    await page.click("#start-scan")
    await expect(page.locator("#scan-state")).to_contain_text("Protocol error")
    await expect(page.locator("#scan-state")).to_contain_text('Unknown event "status"')
    await expect(page.locator("#scan-output")).to_be_empty()
