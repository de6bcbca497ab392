"""Drives the chat page the way a person would: type, press Enter, wait for the answer."""

from __future__ import annotations

from playwright.async_api import Locator, Page, expect


async def ask(page: Page, query: str) -> Locator:
    """Send `query` from the chat page and wait until its answer is no longer streaming."""
    before = await page.locator(".message.assistant").count()
    await page.fill("#query", query)
    await page.press("#query", "Enter")
    # wait_for_function polls every animation frame; expect() backs off to 1 s between polls.
    await page.wait_for_function(
        """n => {
          const answer = document.querySelectorAll(".message.assistant")[n];
          return answer !== undefined && answer.dataset.state !== "streaming";
        }""",
        arg=before,
        timeout=15_000,
    )
    return page.locator(".message.assistant").nth(before)


async def open_chat(page: Page, base_url: str) -> None:
    """Open the chat page and wait until its script is ready."""
    await page.goto(f"{base_url}/")
    await expect(page.locator("#session-id")).to_have_text("new")
