"""The real app's pages work under its Content-Security-Policy: a chat, its trace (timeline bars sized
through the CSSOM) and an AIOps scan run in chromium without a single policy violation."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.browser.chat_page import ask, open_chat

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

# Installed before any page script: every violation the browser reports is kept on the window.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
});
"""


async def _violations(page: Page) -> list[str]:
    found: list[str] = await page.evaluate("window.__violations")
    return found


async def test_pages_run_under_the_policy_without_violations(page: Page, real_url: str) -> None:
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    await page.add_init_script(RECORD_VIOLATIONS)

    response = await page.goto(f"{real_url}/")
    assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
    await open_chat(page, real_url)
    answer = await ask(page, "why is checkout slow?")
    await expect(answer).to_have_attribute("data-state", "success")
    assert await _violations(page) == []

    await answer.locator("a.trace-link").click()
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
    bars = page.locator("#steps .timeline .bar")
    await expect(bars.first).to_be_visible()
    widths = await bars.evaluate_all("nodes => nodes.map(n => n.style.width)")
    assert widths and all(width.endswith("%") for width in widths)  # sized despite the policy
    assert await _violations(page) == []

    await page.goto(f"{real_url}/aiops.html")
    await page.click("#start-scan")
    await expect(page.locator("#scan-state")).to_contain_text("Scan complete", timeout=30_000)
    assert await _violations(page) == []
    assert not [text for text in console if "Content Security Policy" in text]
