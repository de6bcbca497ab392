"""Strings from users, tools, logs and models are inserted as text: markup in them stays inert."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.browser.chat_page import ask, open_chat
from tests.support.fake_api import FakeApi, demo_report, success_script

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

PAYLOAD = "<img src=x onerror=window.__pwned=1>"


async def test_markup_in_finding_and_query_stays_text(page: Page, fake: FakeApi, base_url: str) -> None:
    fake.chat_scripts.append(success_script(demo_report(finding=f"log line: {PAYLOAD}")))
    await open_chat(page, base_url)
    answer = await ask(page, f"why {PAYLOAD}")
    await expect(answer.locator(".findings")).to_contain_text(f"log line: {PAYLOAD}")
    await expect(page.locator(".message.user")).to_contain_text(PAYLOAD)
    await expect(page.locator("#history")).to_contain_text(PAYLOAD)
    assert await page.locator("img").count() == 0
    assert await page.evaluate("window.__pwned") is None

    await answer.locator("a.trace-link").click()
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
    await expect(page.locator("#summary")).to_contain_text(PAYLOAD)
    await expect(page.locator("#tools")).to_contain_text(PAYLOAD)
    await expect(page.locator("#steps")).to_contain_text(PAYLOAD)
    assert await page.locator("img").count() == 0
    assert await page.evaluate("window.__pwned") is None
