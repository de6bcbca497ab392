"""The chat page: a streamed report, multi-turn sessions, feedback, history and token auth."""

from __future__ import annotations

import pytest
from playwright.async_api import Dialog, Page, expect

from tests.browser.chat_page import ask, open_chat
from tests.support.fake_api import FakeApi, frame, success_script

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_chat_renders_report_once_after_done(page: Page, fake: FakeApi, base_url: str) -> None:
    await open_chat(page, base_url)
    answer = await ask(page, "Why is checkout slow?")
    await expect(answer).to_have_attribute("data-state", "success")
    await expect(answer.locator(".report")).to_have_count(1)
    await expect(answer.locator(".root-statement")).to_contain_text("pool hit its limit of 50")
    await expect(answer.locator(".facts")).to_contain_text("82%")
    await expect(answer.locator(".findings li")).to_have_count(2)
    await expect(answer.locator(".chip").first).to_have_text("▣ ev-metrics-1")
    await expect(answer).to_contain_text("runbooks/db-pool.md")
    await expect(answer.locator(".progress li")).to_have_count(3)
    await expect(answer.locator(".message-state")).to_contain_text("Complete")
    link = answer.locator("a.trace-link")
    await expect(link).to_have_attribute("href", "trace.html?sessionId=sess-0001&runId=run-0002")
    await expect(page.locator("#session-id")).to_have_text("sess-0001")


async def test_fallback_answer_shows_degraded_badge(page: Page, fake: FakeApi, base_url: str) -> None:
    def fallback(session_id: str, run_id: str) -> list[str]:
        payload = {"text": "I could not verify a diagnosis.", "sources": [], "degraded": True}
        return [
            frame("metadata", {"session_id": session_id, "run_id": run_id}),
            frame("content", {"content_type": "answer", "payload": payload}),
            frame("done", {"outcome": "FALLBACK"}),
        ]

    fake.chat_scripts.append(fallback)
    await open_chat(page, base_url)
    answer = await ask(page, "Why is checkout slow?")
    await expect(answer).to_have_attribute("data-state", "fallback")
    await expect(answer.locator(".report")).to_contain_text("Degraded (fallback)")
    await expect(answer.locator(".report")).to_contain_text("I could not verify a diagnosis.")


async def test_failure_event_shows_stable_message(page: Page, fake: FakeApi, base_url: str) -> None:
    def failed(session_id: str, run_id: str) -> list[str]:
        return [
            frame("metadata", {"session_id": session_id, "run_id": run_id}),
            frame("failure", {"code": "RUN_FAILED", "message": "The diagnosis could not finish."}),
            frame("done", {"outcome": "FAILED"}),
        ]

    fake.chat_scripts.append(failed)
    await open_chat(page, base_url)
    answer = await ask(page, "Why is checkout slow?")
    await expect(answer).to_have_attribute("data-state", "failed")
    await expect(answer.locator(".error")).to_contain_text("The diagnosis could not finish.")
    await expect(answer.locator(".report")).to_have_count(0)


async def test_multi_turn_keeps_one_session(page: Page, fake: FakeApi, base_url: str) -> None:
    await open_chat(page, base_url)
    await ask(page, "Why is checkout slow?")
    await ask(page, "And what about payments?")
    assert [r.get("sessionId") for r in fake.chat_requests] == [None, "sess-0001"]
    await expect(page.locator("#history li")).to_have_count(2)
    await expect(page.locator("#history")).to_contain_text("And what about payments?")

    await page.click("#new-session")
    await expect(page.locator("#messages li")).to_have_count(0)
    await expect(page.locator("#session-id")).to_have_text("new")
    await ask(page, "A fresh question")
    assert "sessionId" not in fake.chat_requests[-1]


async def test_a_question_asked_while_history_loads_is_sent(page: Page, fake: FakeApi, base_url: str) -> None:
    # The history list refreshes after each answer; a slow refresh must not swallow the next question.
    fake.runs_delay = 3.0
    await open_chat(page, base_url)
    first = await ask(page, "Why is checkout slow?")
    second = await ask(page, "And what about payments?")
    await expect(first).to_have_attribute("data-state", "success")
    await expect(second).to_have_attribute("data-state", "success")
    assert [r["query"] for r in fake.chat_requests] == ["Why is checkout slow?", "And what about payments?"]
    await expect(page.locator("#history li")).to_have_count(2, timeout=10_000)


async def test_session_survives_reload_with_history(page: Page, fake: FakeApi, base_url: str) -> None:
    await open_chat(page, base_url)
    await ask(page, "Why is checkout slow?")
    await page.reload()
    await expect(page.locator("#session-id")).to_have_text("sess-0001")
    await expect(page.locator("#history li")).to_have_count(1)


async def test_feedback_posts_the_run_of_that_answer(page: Page, fake: FakeApi, base_url: str) -> None:
    await open_chat(page, base_url)
    await ask(page, "Why is checkout slow?")
    second = await ask(page, "And payments?")
    await second.locator(".feedback input").fill("spot on")
    await second.get_by_role("button", name="Not useful").click()
    await expect(second.locator(".feedback-state")).to_contain_text("marked not useful")
    assert fake.feedback == [
        {"sessionId": "sess-0001", "runId": "run-0003", "useful": False, "comment": "spot on"}
    ]


async def test_crlf_pings_and_split_frames_are_parsed(page: Page, fake: FakeApi, base_url: str) -> None:
    def split(session_id: str, run_id: str) -> list[str]:
        text = ": ping - 2026-11-30 10:00:00\r\n\r\n" + "".join(
            success_script(line_end="\r\n")(session_id, run_id)
        )
        text = text.replace("event: content", ": ping - keepalive\r\nevent: content")
        # Cut through the middle of JSON, of a CRLF pair and of a field name.
        return [text[i : i + 37] for i in range(0, len(text), 37)]

    fake.chat_scripts.append(split)
    await open_chat(page, base_url)
    answer = await ask(page, "Why is checkout slow?")
    await expect(answer).to_have_attribute("data-state", "success")
    await expect(answer.locator(".report")).to_have_count(1)
    await expect(answer.locator(".progress li")).to_have_count(3)


async def test_frame_parser_handles_every_split_point(page: Page, base_url: str) -> None:
    await open_chat(page, base_url)
    frames = await page.evaluate(
        """async () => {
          const { SseFrameParser } = await import("./api.js");
          const text = ": ping\\r\\n\\r\\nevent: status\\r\\ndata: {\\"a\\": 1}\\r\\n\\r\\n"
            + "event: done\\ndata: {\\"b\\":\\ndata: 2}\\n\\n";
          const results = [];
          for (let cut = 0; cut <= text.length; cut++) {
            const parser = new SseFrameParser();
            const frames = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
            results.push(JSON.stringify(frames) + (parser.hasPartialFrame() ? "!" : ""));
          }
          return [...new Set(results)];
        }"""
    )
    assert frames == ['[{"event":"status","data":"{\\"a\\": 1}"},{"event":"done","data":"{\\"b\\":\\n2}"}]']


async def test_auth_required_asks_for_token_once(page: Page, fake: FakeApi, base_url: str) -> None:
    fake.token = "s3cret"
    prompts: list[str] = []

    async def answer_prompt(dialog: Dialog) -> None:
        prompts.append(dialog.message)
        await dialog.accept("s3cret")

    page.on("dialog", answer_prompt)
    await open_chat(page, base_url)
    answer = await ask(page, "Why is checkout slow?")
    await expect(answer).to_have_attribute("data-state", "success")
    await ask(page, "Again")
    assert len(prompts) == 1
    assert len(fake.chat_requests) == 2
