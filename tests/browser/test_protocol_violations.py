"""A stream that breaks the chat protocol fails closed: an error shows, no report renders."""

from __future__ import annotations

import json

import pytest
from playwright.async_api import Page, expect

from tests.browser.chat_page import ask, open_chat
from tests.support.fake_api import ChatScript, FakeApi, demo_report, frame

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

REPORT = {"content_type": "diagnosis_report", "payload": demo_report()}
STATUS = {"code": "DIAGNOSING", "message": "Diagnosing"}
FAILURE = {"code": "RUN_FAILED", "message": "The diagnosis could not finish."}


def scripted(*frames: tuple[str, object] | str) -> ChatScript:
    """A chat script of (event, data) frames; a plain string is sent as raw text."""

    def script(session_id: str, run_id: str) -> list[str]:
        ids = {"session_id": session_id, "run_id": run_id}
        return [
            item if isinstance(item, str) else frame(item[0], ids if item[1] == "ids" else item[1])
            for item in frames
        ]

    return script


VIOLATIONS: dict[str, tuple[ChatScript, str]] = {
    "malformed_json": (
        scripted(
            ("metadata", "ids"),
            "event: content\ndata: {not json\n\n",
            ("done", {"outcome": "SUCCESS"}),
        ),
        "did not carry valid JSON",
    ),
    "duplicate_metadata": (
        scripted(
            ("metadata", "ids"),
            ("metadata", "ids"),
            ("content", REPORT),
            ("done", {"outcome": "SUCCESS"}),
        ),
        "Duplicate metadata",
    ),
    "content_before_metadata": (
        scripted(("content", REPORT), ("metadata", "ids"), ("done", {"outcome": "SUCCESS"})),
        "before metadata",
    ),
    "status_after_content": (
        scripted(
            ("metadata", "ids"),
            ("content", REPORT),
            ("status", STATUS),
            ("done", {"outcome": "SUCCESS"}),
        ),
        "status event arrived after the content",
    ),
    "content_and_failure": (
        scripted(
            ("metadata", "ids"),
            ("content", REPORT),
            ("failure", FAILURE),
            ("done", {"outcome": "FAILED"}),
        ),
        "Conflicting events",
    ),
    "unknown_event": (
        scripted(
            ("metadata", "ids"),
            ("thought", {"text": "secret"}),
            ("content", REPORT),
            ("done", {"outcome": "SUCCESS"}),
        ),
        'Unknown event "thought"',
    ),
    "duplicate_content": (
        scripted(
            ("metadata", "ids"),
            ("content", REPORT),
            ("content", REPORT),
            ("done", {"outcome": "SUCCESS"}),
        ),
        "Duplicate content",
    ),
    "event_after_done": (
        scripted(
            ("metadata", "ids"),
            ("content", REPORT),
            ("done", {"outcome": "SUCCESS"}),
            ("done", {"outcome": "SUCCESS"}),
        ),
        "after done",
    ),
    "missing_done": (
        scripted(("metadata", "ids"), ("content", REPORT)),
        "ended before the done event",
    ),
    "outcome_conflicts_with_content": (
        scripted(("metadata", "ids"), ("content", REPORT), ("done", {"outcome": "FAILED"})),
        "does not match",
    ),
    "payload_not_typed": (
        scripted(
            ("metadata", "ids"),
            ("content", {"content_type": "diagnosis_report", "payload": {"summary": 1}}),
            ("done", {"outcome": "SUCCESS"}),
        ),
        "Malformed content",
    ),
    "metadata_extra_field": (
        scripted(
            ("metadata", {"session_id": "s", "run_id": "r", "prompt": "x"}),
            ("content", REPORT),
            ("done", {"outcome": "SUCCESS"}),
        ),
        "Malformed metadata",
    ),
    "raw_text_body": (
        scripted("The answer is plain text, not an event stream frame"),
        "middle of an event",
    ),
}


@pytest.mark.parametrize("case", sorted(VIOLATIONS))
async def test_violation_shows_error_and_no_report(
    page: Page, fake: FakeApi, base_url: str, case: str
) -> None:
    script, expected = VIOLATIONS[case]
    fake.chat_scripts.append(script)
    await open_chat(page, base_url)
    answer = await ask(page, "Why is checkout slow?")
    await expect(answer).to_have_attribute("data-state", "error")
    await expect(answer.locator(".error")).to_contain_text("Protocol error")
    await expect(answer.locator(".error")).to_contain_text(expected)
    await expect(answer.locator(".report")).to_have_count(0)
    await expect(answer.locator(".feedback")).to_have_count(0)
    await expect(page.locator("body")).not_to_contain_text(demo_report()["summary"])


async def test_http_error_body_is_shown(page: Page, fake: FakeApi, base_url: str) -> None:
    await open_chat(page, base_url)
    body = await page.evaluate(
        """async () => {
          const { streamChat } = await import("./api.js");
          try { await streamChat({ sessionId: null, query: " " }); return "no error"; }
          catch (error) { return `${error.code}: ${error.message}`; }
        }"""
    )
    assert body == "VALIDATION_ERROR: The query must not be blank."
    assert json.dumps(fake.chat_requests) == '[{"query": " "}]'
