"""The trace page: run summary, orchestration diagram with the path, steps, tools, feedback."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from graph.nodes import NodeId
from tests.browser.chat_page import ask, open_chat
from tests.support.fake_api import FakeApi

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

ALL_NODES = [node.value for node in NodeId]  # every node box diagram.js draws


async def test_answer_links_to_trace_with_diagram_of_path(page: Page, fake: FakeApi, base_url: str) -> None:
    await open_chat(page, base_url)
    answer = await ask(page, "Why is checkout slow?")
    await answer.locator("a.trace-link").click()
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")

    diagram = page.locator("#graph svg.diagram")
    for node in ALL_NODES:
        await expect(diagram.locator(f'g.node[data-node="{node}"]')).to_have_count(1)
    visited = await diagram.locator('g.node[data-visited="true"]').evaluate_all(
        "nodes => nodes.map(n => n.dataset.node)"
    )
    assert sorted(visited) == sorted(set(ALL_NODES) - {"fallback", "lookup"})  # a diagnosis, not a lookup
    await expect(diagram.locator('g.node[data-final="true"]')).to_have_attribute("data-node", "composer")
    await expect(diagram.locator('g.node[data-node="diagnose"]')).to_contain_text("step 4, 7")
    await expect(diagram).to_contain_text("re-draft")
    await expect(diagram).to_contain_text("violations")
    await expect(diagram).to_contain_text("◀ final")
    await expect(diagram.locator('.edge[data-taken="true"]')).to_have_count(8)
    await expect(page.locator("#graph")).to_contain_text("Path: router → planner → executors")

    await expect(page.locator("#summary")).to_contain_text("Why is checkout slow?")
    await expect(page.locator("#steps .timeline li")).to_have_count(10)
    await expect(page.locator("#tools tbody tr")).to_have_count(3)
    await expect(page.locator("#tools")).to_contain_text("unavailable")
    await expect(page.locator("#evidence tbody tr")).to_have_count(4)
    await expect(page.locator("#guard")).to_contain_text("violations: 0")
    await expect(page.locator("#answer .report")).to_have_count(1)


async def test_trace_page_feedback_is_bound_to_the_run(page: Page, fake: FakeApi, base_url: str) -> None:
    await open_chat(page, base_url)
    await ask(page, "Why is checkout slow?")
    await page.goto(f"{base_url}/trace.html?sessionId=sess-0001&runId=run-0002")
    await expect(page.locator("#feedback")).to_contain_text("No feedback yet.")
    await page.locator("#feedback").get_by_role("button", name="Useful", exact=True).click()
    await expect(page.locator("#feedback .feedback-state")).to_contain_text("marked useful")
    assert fake.feedback == [{"sessionId": "sess-0001", "runId": "run-0002", "useful": True}]
    await page.reload()
    await expect(page.locator("#feedback")).to_contain_text("Useful")
    await expect(page.locator("#feedback button")).to_have_count(0)


async def test_trace_of_unknown_run_shows_error(page: Page, fake: FakeApi, base_url: str) -> None:
    await page.goto(f"{base_url}/trace.html?sessionId=nope&runId=nope")
    await expect(page.locator("#trace-state")).to_contain_text("Trace unavailable: Unknown run")
    await page.goto(f"{base_url}/trace.html")
    await expect(page.locator("#trace-state")).to_contain_text("Missing sessionId or runId")
