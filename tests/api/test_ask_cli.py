"""`superbiz ask` against a live server: progress, the report, the trace link, an exit code per outcome."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx

from api.app import create_app
from api.ask import EXIT_FAILED, EXIT_FALLBACK, EXIT_REFUSED, EXIT_SUCCESS, EXIT_UNREACHABLE
from api.settings import Settings
from tests.support.live_server import free_port, live_server

TOKEN = "alice-token-123"
SUPERBIZ = str(Path(sys.executable).with_name("superbiz"))


@asynccontextmanager
async def server(tmp_path: Path, **overrides: Any) -> AsyncIterator[str]:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'ask.db'}", api_tokens=f"alice:{TOKEN}", **overrides
    )
    async with live_server(create_app(settings)) as url:
        yield url


async def ask(*args: str, token: str | None = TOKEN) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUPERBIZ_")}
    if token:
        env["SUPERBIZ_API_TOKEN"] = token
    process = await asyncio.create_subprocess_exec(
        SUPERBIZ, "ask", *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_ask_prints_progress_report_and_trace_link(tmp_path: Path) -> None:
    async with server(tmp_path) as url:
        code, out, err = await ask("why is checkout slow?", "--url", url, "--session", "ask-s")
        assert code == EXIT_SUCCESS, err
        assert "Collecting evidence" in err or "evidence" in err.lower()  # live status messages
        assert "outcome: SUCCESS" in err
        link = next(line for line in out.splitlines() if line.startswith("Trace: "))[len("Trace: ") :]
        params = parse_qs(urlparse(link).query)
        assert link.startswith(f"{url}/trace.html?") and params["sessionId"] == ["ask-s"]
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as client:
            trace = (
                await client.get("/api/diagnosis/ask-s/trace", params={"runId": params["runId"][0]})
            ).json()["data"]
        payload = trace["answer"]["payload"]
        assert trace["run"]["outcome"] == "SUCCESS"
        assert "Root cause" in out and payload["root_cause"]["service"] in out
        for finding in payload["findings"]:
            for evidence_id in finding["evidence_ids"]:
                assert evidence_id in out

        code, out, err = await ask("why is checkout slow?", "--url", url, "--json")
        assert code == EXIT_SUCCESS
        content = json.loads(out)
        assert content["content_type"] == "diagnosis_report" and content["payload"]["markdown"]
        assert "trace: " in err


async def test_ask_exit_codes_for_fallback_failed_refused_and_unreachable(tmp_path: Path) -> None:
    async with server(tmp_path, chat={"max_tool_calls": 1}) as url:
        code, out, err = await ask("why is checkout slow?", "--url", url)
        assert code == EXIT_FALLBACK, (out, err)
        assert "outcome: FALLBACK" in err
        code, _, err = await ask("why is checkout slow?", "--url", url, token="wrong-token-999")
        assert code == EXIT_REFUSED and "HTTP 401 AUTH_REQUIRED" in err
    async with server(tmp_path, chat={"max_answer_bytes": 64}) as url:
        code, out, err = await ask("why is checkout slow?", "--url", url, "--plain")
        assert code == EXIT_FAILED, (out, err)
        assert out.startswith("No answer: ")
    code, _, err = await ask("why?", "--url", f"http://127.0.0.1:{free_port()}")
    assert code == EXIT_UNREACHABLE and "cannot connect" in err
