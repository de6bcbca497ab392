"""`superbiz demo` against a real server: every trace it prints is the exact run it names."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from api.app import create_app
from api.demo import run_demo
from api.settings import Settings
from tests.support.live_server import live_server


async def test_demo_runs_two_turns_and_aiops_with_matching_traces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'demo.db'}"))
    async with live_server(app) as url:
        code = await asyncio.to_thread(run_demo, url)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "every trace matched its run" in out
    assert out.count("trace.html?sessionId=") == 3
    assert "payment" in out
