"""The README screenshots come from this browser run against the real app; the pages also fit a
phone screen and the chat is keyboard usable."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from tests.browser.chat_page import ask, open_chat
from tests.browser.screenshots import save_screenshots
from tests.support.fake_api import FakeApi

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


async def test_screenshots_of_a_real_demo_diagnosis(browser: Browser, real_url: str) -> None:
    chat_png, trace_png = await save_screenshots(browser, real_url)
    for image in (chat_png, trace_png):
        assert image.read_bytes().startswith(PNG_MAGIC)


async def _overflow(page: Page) -> int:
    width: int = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    return width


async def test_pages_fit_a_phone_width(page: Page, fake: FakeApi, base_url: str) -> None:
    await page.set_viewport_size({"width": 390, "height": 844})
    await open_chat(page, base_url)
    answer = await ask(page, "Why is checkout slow?")
    assert await _overflow(page) <= 0
    await answer.locator("a.trace-link").click()
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
    assert await _overflow(page) <= 0
    await page.goto(f"{base_url}/aiops.html")
    assert await _overflow(page) <= 0


async def test_chat_is_keyboard_usable(page: Page, fake: FakeApi, base_url: str) -> None:
    await open_chat(page, base_url)
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")  # the skip link moves focus to the message box
    await page.keyboard.type("Why is checkout slow?")
    await page.keyboard.press("Enter")
    answer = page.locator(".message.assistant").first
    await expect(answer).to_have_attribute("data-state", "success")
    await answer.get_by_role("button", name="Useful", exact=True).focus()
    await page.keyboard.press("Enter")
    await expect(answer.locator(".feedback-state")).to_contain_text("marked useful")
    assert fake.feedback[0]["useful"] is True
