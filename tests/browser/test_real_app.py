"""The frontend against the real app: a demo-world diagnosis by the rule-based analyst, its trace,
multi-turn sessions, stored feedback and the AIOps scan, checked in the page and over HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.async_api import Locator, Page, expect

from graph.nodes import NodeId
from tests.browser.chat_page import ask, open_chat

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

DIAGRAM_NODES = [node.value for node in NodeId]  # every node box diagram.js draws
RUN_TIMEOUT_MS = 30_000  # a demo diagnosis takes a few seconds; a loaded CI machine may be slower


async def _api(base_url: str, path: str, **params: str) -> Any:
    """GET a JSON API path of the real app and return the `data` of its envelope."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
        response = await client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def _trace(base_url: str, session_id: str, run_id: str) -> Any:
    return await _api(base_url, f"/api/diagnosis/{session_id}/trace", runId=run_id)


def _diagram_node(name: str) -> str | None:
    """The diagram's box for a trace node name (diagram.js draws the three executor lanes as one)."""
    node = "executors" if name.startswith("executor") else name
    return node if node in DIAGRAM_NODES else None


def _taken_edges(orchestration: dict[str, Any]) -> set[str]:
    edges = set()
    for transition in orchestration["transitions"]:
        source, target = _diagram_node(transition["from"]), _diagram_node(transition["to"])
        if source and target and source != target:
            edges.add(f"{source}>{target}")
    return edges


async def _texts(locator: Locator) -> list[str]:
    texts: list[str] = await locator.evaluate_all("nodes => nodes.map(n => n.textContent.trim())")
    return texts


async def _ids_of(answer: Locator) -> tuple[str, str]:
    """The session and run ids an answer is bound to, read from its trace link."""
    href = await answer.locator("a.trace-link").get_attribute("href")
    assert href is not None
    query = httpx.URL(href).params
    return query["sessionId"], query["runId"]


async def test_demo_chat_renders_report_and_trace_diagram(page: Page, real_url: str) -> None:
    await open_chat(page, real_url)
    answer = await ask(page, "why is checkout slow?")
    await expect(answer).to_have_attribute("data-state", "success")
    await expect(answer.locator(".report")).to_have_count(1)
    await expect(answer.locator(".progress")).to_contain_text("DIAGNOSING")
    root_cause = answer.locator(".report-section").filter(has=page.locator("h3", has_text="Root cause"))
    await expect(root_cause.locator("dt + dd").first).to_have_text("payment")
    await expect(root_cause).to_contain_text("connection_pool_exhaustion")

    findings = answer.locator(".findings > li")
    assert await findings.count() >= 3
    for index in range(await findings.count()):
        assert await findings.nth(index).locator(".chip").count() >= 1
    await answer.locator("details.evidence summary").click()
    evidence_ids = set(await _texts(answer.locator("details.evidence tbody tr td:first-child")))
    chip_ids = {text.removeprefix("▣ ") for text in await _texts(answer.locator(".findings .chip"))}
    assert chip_ids and chip_ids <= evidence_ids  # every cited id is in the released evidence

    session_id, run_id = await _ids_of(answer)
    await answer.locator("a.trace-link").click()
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
    trace = await _trace(real_url, session_id, run_id)
    orchestration = trace["run"]["orchestrationTrace"]

    diagram = page.locator("#graph svg.diagram")
    for node in DIAGRAM_NODES:
        await expect(diagram.locator(f'g.node[data-node="{node}"]')).to_have_count(1)
    visited = await diagram.locator('g.node[data-visited="true"]').evaluate_all(
        "nodes => nodes.map(n => n.dataset.node)"
    )
    assert set(visited) == {_diagram_node(name) for name in orchestration["path"]}
    assert {"router", "planner", "executors", "diagnose", "evidence_guard", "composer"} <= set(visited)
    await expect(diagram.locator('g.node[data-final="true"]')).to_have_attribute("data-node", "composer")
    taken_edges = diagram.locator('.edge[data-taken="true"]')
    taken = set(await taken_edges.evaluate_all("edges => edges.map(e => e.dataset.edge)"))
    assert taken == _taken_edges(orchestration)
    # The real graph's loop: the planner joins the executor lanes, then hands over to diagnose.
    assert {"planner>executors", "executors>planner", "planner>diagnose"} <= taken
    await expect(page.locator("#graph")).to_contain_text("Path: router → planner → executors")

    await expect(page.locator("#summary")).to_contain_text("why is checkout slow?")
    assert trace["steps"] and trace["toolInvocations"]
    await expect(page.locator("#steps .timeline li")).to_have_count(len(trace["steps"]))
    await expect(page.locator("#tools tbody tr")).to_have_count(len(trace["toolInvocations"]))
    await expect(page.locator("#evidence tbody tr")).to_have_count(len(evidence_ids))
    await expect(page.locator("#answer .report")).to_contain_text("payment")


async def test_two_questions_share_one_session(page: Page, real_url: str) -> None:
    await open_chat(page, real_url)
    first = await ask(page, "why is checkout slow?")
    session_id = (await page.locator("#session-id").text_content() or "").strip()
    second = await ask(page, "Which runbook covers a saturated connection pool?")
    for answer in (first, second):
        await expect(answer).not_to_have_attribute("data-state", "error")
    await expect(page.locator("#session-id")).to_have_text(session_id)
    first_ids, second_ids = await _ids_of(first), await _ids_of(second)
    assert first_ids[0] == second_ids[0] == session_id
    assert first_ids[1] != second_ids[1]
    await expect(page.locator("#history li")).to_have_count(2)

    runs = await _api(real_url, f"/api/chat/session/{session_id}/runs")
    assert {run["sessionId"] for run in runs} == {session_id}
    assert {run["runId"] for run in runs} == {first_ids[1], second_ids[1]}
    assert sorted(run["query"] for run in runs) == sorted(
        ["why is checkout slow?", "Which runbook covers a saturated connection pool?"]
    )


async def test_useful_feedback_is_stored_and_creates_a_case(page: Page, real_url: str) -> None:
    await open_chat(page, real_url)
    answer = await ask(page, "why is checkout slow?")
    await expect(answer).to_have_attribute("data-state", "success")
    session_id, run_id = await _ids_of(answer)
    async with page.expect_response("**/api/feedback") as posted:
        await answer.get_by_role("button", name="Useful", exact=True).click()
    response = await posted.value
    assert response.status == 200
    body = (await response.json())["data"]
    assert body["runId"] == run_id
    assert body["caseId"]
    await expect(answer.locator(".feedback-state")).to_contain_text("marked useful")

    trace = await _trace(real_url, session_id, run_id)
    assert trace["feedback"]["useful"] is True


async def test_aiops_scan_streams_report_and_links_trace(page: Page, real_url: str) -> None:
    await page.goto(f"{real_url}/aiops.html")
    await page.click("#start-scan")
    await expect(page.locator("#scan-state")).to_contain_text("Scan complete", timeout=RUN_TIMEOUT_MS)
    reports = page.locator("#scan-output .report")
    assert await reports.count() >= 1
    await expect(reports.first).to_contain_text("payment")
    await expect(reports.first.locator(".findings .chip").first).to_be_visible()

    await page.click("#scan-links a.trace-link")
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
    await expect(page.locator("#summary")).to_contain_text("AI_OPS")
    await expect(page.locator("#steps .timeline li").first).to_be_visible()
    await expect(page.locator("#tools tbody tr").first).to_be_visible()
