"""The model never receives a secret from tool output: the LLM analyst (the real ChatOpenAI against
the scripted server) plans log and SQL calls on a world whose log line and rows hold secrets, and every
request body the model received is searched."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.live_server import live_server
from tests.support.scripted_llm import ScriptedLLM, ToolCall
from tests.support.secret_world import SECRETS, build_secret_world
from tests.support.sse import only, post_stream

pytestmark = pytest.mark.llm

PLAN = {
    "calls": [
        {"tool": "query_logs", "args": {"service": "ledger", "level": "error"}},
        {
            "tool": "query_mysql",
            "args": {"datasource": "ledgerdb", "statement": "SELECT * FROM service_accounts"},
        },
        {"tool": "query_mysql", "args": {"datasource": "ledgerdb", "statement": "SELECT * FROM roles"}},
    ]
}
DRAFT = {
    "summary": "Root cause: ledger.",
    "healthy": False,
    "root_cause": {
        "service": "ledger",
        "category": "dependency_failure",
        "statement": "ledger writes time out.",
        "confidence": 0.6,
    },
    "findings": [{"statement": "LedgerLatencyHigh fired on ledger.", "evidence_ids": ["alerts-1"]}],
    "recommendations": [],
    "open_questions": [],
    "ruled_out": [],
}


async def test_secrets_in_log_lines_and_sql_rows_never_reach_the_model(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.script("Plan", ToolCall(PLAN))
    llm.script("Draft", ToolCall(DRAFT))
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'runs.db'}",
        world_dir=build_secret_world(tmp_path / "world"),
        model={"base_url": llm.base_url, "name": "scripted", "api_key": "test", "max_retries": 0},
    )
    async with (
        live_server(create_app(settings)) as url,
        httpx.AsyncClient(base_url=url, timeout=30) as client,
    ):
        frames = await post_stream(client, "/api/chat", {"query": "why is ledger slow?"})
    assert only(frames, "done")["outcome"] in ("SUCCESS", "FALLBACK")

    draft_requests = llm.requests_for("Draft")
    assert draft_requests, "the model was never asked for a draft"
    sent = json.dumps(llm.requests, ensure_ascii=False)
    # The secrets were in what the model read, masked: the log line, the row and the verifier.
    draft_input = json.dumps(draft_requests[0], ensure_ascii=False)
    assert "SCRAM-SHA-256$[REDACTED]" in draft_input and "[REDACTED]" in draft_input
    for secret in SECRETS:
        assert secret not in sent, f"{secret!r} reached the model"
