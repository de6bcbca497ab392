"""Control characters in any text a client sends are refused with 422 INVALID_CHARACTERS, before any
database sees them: PostgreSQL cannot store NUL in text (feedback answered 500, chat and AIOps a
misleading retryable 503), and a stored C1 control or escape can drive the terminal of whoever reads it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.schemas import forbidden_character
from persistence.db import upgrade_head
from tests.api.conftest import AppAndClient, MakeClient
from tests.conftest import require_service_url
from tests.support.app_state import count_rows
from tests.support.postgres import fresh_database
from tests.support.sse import only, post_stream

# C0 except tab, newline and carriage return; DEL; C1; a lone surrogate (json.loads accepts "\ud800").
FORBIDDEN = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x80", "\x9b", "\x9f", "\ud800"]
ALLOWED = ["\t", "\n", "\r", " ", "é", "\u00a0", "日本", "\U0001f600"]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'edges.db'}"
        return
    with fresh_database(require_service_url("SUPERBIZ_TEST_PG_URL"), "superbiz_edges") as url:
        upgrade_head(url)
        yield url


@pytest.fixture
async def served(make_client: MakeClient, database_url: str) -> AsyncIterator[AppAndClient]:
    async with make_client(database_url=database_url) as pair:
        yield pair


def _assert_refused(response: httpx.Response, field: str) -> None:
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["code"] == "INVALID_CHARACTERS"
    assert field in [detail["field"] for detail in body["data"]]
    assert "\\u0000" not in response.text  # the rejected input is never echoed


@pytest.mark.parametrize("char", FORBIDDEN, ids=[f"U+{ord(c):04X}" for c in FORBIDDEN])
def test_forbidden_characters_are_found(char: str) -> None:
    assert forbidden_character(f"a{char}b")


@pytest.mark.parametrize("char", ALLOWED, ids=[f"U+{ord(c[0]):04X}" for c in ALLOWED])
def test_ordinary_text_is_not_forbidden(char: str) -> None:
    assert not forbidden_character(f"a{char}b")


async def test_nul_in_every_body_text_field_is_422_and_writes_nothing(served: AppAndClient) -> None:
    app, client = served
    bodies: list[tuple[str, dict[str, Any], str]] = [
        ("/api/chat", {"query": "why\u0000 slow?"}, "query"),
        ("/api/chat", {"sessionId": "s\u0000", "query": "why?"}, "session_id"),
        ("/api/ai_ops", {"instruction": "scan\u0000"}, "instruction"),
        ("/api/ai_ops", {"services": ["checkout\u0000"]}, "services"),
        ("/api/ai_ops", {"sessionId": "s\u001b"}, "sessionId"),
    ]
    for path, body, field in bodies:
        _assert_refused(await client.post(path, json=body), field)
    assert await count_rows(app, "diagnosis_run") == 0
    assert await count_rows(app, "chat_session") == 0


async def test_control_characters_in_feedback_of_a_real_run_are_422(served: AppAndClient) -> None:
    _, client = served
    frames = await post_stream(client, "/api/chat", {"sessionId": "cc-1", "query": "why is checkout slow?"})
    run_id = only(frames, "metadata")["run_id"]
    for char in ("\u0000", "\u0085", "\u007f"):
        body = {"sessionId": "cc-1", "runId": run_id, "useful": True, "comment": f"good{char}"}
        _assert_refused(await client.post("/api/feedback", json=body), "comment")
    trace = (await client.get("/api/diagnosis/cc-1/trace", params={"runId": run_id})).json()
    assert trace["data"]["feedback"] is None
    ok = {"sessionId": "cc-1", "runId": run_id, "useful": False, "comment": "line one\r\n\tline two é"}
    assert (await client.post("/api/feedback", json=ok)).status_code == 200


async def test_control_characters_in_path_and_query_parameters_are_422(served: AppAndClient) -> None:
    _, client = served
    _assert_refused(await client.get("/api/chat/session/s%00x/runs"), "path.sessionId")
    _assert_refused(await client.get("/api/diagnosis/s%01/trace", params={"runId": "r"}), "path.sessionId")
    _assert_refused(await client.get("/api/diagnosis/s/trace", params={"runId": "r\u0000"}), "query.runId")


async def test_tab_newline_and_unicode_text_still_run(served: AppAndClient) -> None:
    _, client = served
    frames = await post_stream(
        client, "/api/chat", {"sessionId": "cc-2", "query": "why is\tcheckout\r\nslow? é 日本"}
    )
    assert only(frames, "done")["outcome"] in {"SUCCESS", "FALLBACK"}
