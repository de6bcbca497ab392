"""A data question in the browser against the real app: the chat page shows the lookup's table and its
query, and the trace page shows the answer and the lookup node on the diagram."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.browser.chat_page import ask, open_chat

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_a_data_question_shows_its_rows_in_the_chat_and_the_trace(page: Page, real_url: str) -> None:
    await open_chat(page, real_url)
    answer = await ask(page, "Show the last 4 error lines from payment")
    await expect(answer).to_have_attribute("data-state", "success")
    article = answer.locator('article[data-content-type="lookup_result"]')
    await expect(article).to_have_count(1)
    table = article.locator('section.lookup-table[data-kind="log_lines"]')
    await expect(table.locator("thead th")).to_have_text(["time", "service", "level", "labels", "message"])
    await expect(table.locator("tbody tr")).to_have_count(4)
    await expect(table.locator("tbody tr td:nth-child(2)")).to_have_text(["payment"] * 4)
    await expect(table.locator(".lookup-query code")).to_contain_text("service=payment")
    await expect(table.locator("caption")).to_contain_text("4 rows")

    await answer.locator("a.trace-link").click()
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
    await expect(page.locator("#answer section.lookup-table tbody tr")).to_have_count(4)
    await expect(page.locator("#summary")).to_contain_text("lookup")
    diagram = page.locator("#graph svg.diagram")
    await expect(diagram.locator('g.node[data-node="lookup"]')).to_have_attribute("data-visited", "true")
    await expect(diagram.locator('g.node[data-node="diagnose"]')).to_have_attribute("data-visited", "false")
    await expect(diagram.locator('.edge[data-edge="planner>lookup"]')).to_have_attribute("data-taken", "true")
    await expect(page.locator("#evidence tbody tr")).to_have_count(1)


async def test_nothing_matched_is_said_in_the_table(page: Page, real_url: str) -> None:
    await open_chat(page, real_url)
    answer = await ask(page, "grep 'no such phrase anywhere' in the payment logs")
    await expect(answer).to_have_attribute("data-state", "success")
    await expect(answer.locator(".report-badges")).to_contain_text("Nothing matched")
    await expect(answer.locator("section.lookup-table tbody td")).to_have_text("Nothing matched.")
