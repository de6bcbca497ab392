"""Screenshots of the chat and trace pages for the README, taken by driving a real chat.

`save_screenshots` works against any server that serves the frontend and the API (the fake API in
tests, or the real app), so the README images come from the same browser run as the tests.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api import Browser, FloatRect, Page, expect

from tests.browser.chat_page import ask, open_chat

MAX_HEIGHT = 2200
SCREENSHOT_DIR = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


async def save_screenshots(
    browser: Browser,
    base_url: str,
    out_dir: Path = SCREENSHOT_DIR,
    query: str = "Why is checkout slow?",
) -> tuple[Path, Path]:
    """Ask `query` on `base_url`, then save `chat.png` and `trace.png` into `out_dir`."""
    await asyncio.to_thread(out_dir.mkdir, parents=True, exist_ok=True)
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = await context.new_page()
        await open_chat(page, base_url)
        answer = await ask(page, query)
        # The evidence table stays folded: a real diagnosis cites about thirty items, and the README
        # should show the report, its trace link and the feedback buttons.
        chat_png = out_dir / "chat.png"
        await _capture(page, chat_png)
        await answer.locator("a.trace-link").click()
        await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
        trace_png = out_dir / "trace.png"
        await _capture(page, trace_png)
        return chat_png, trace_png
    finally:
        await context.close()


async def _capture(page: Page, path: Path) -> None:
    # A real trace can be many screens long; the README needs its top (summary, diagram, steps).
    height: int = await page.evaluate("document.documentElement.scrollHeight")
    clip: FloatRect = {"x": 0, "y": 0, "width": 1280, "height": min(height, MAX_HEIGHT)}
    await page.screenshot(path=str(path), full_page=True, clip=clip)
