"""A disconnect storm over real TCP: 300 chats at concurrency 15 (below the 16 workers), about half
dropped by their client mid-stream. A dropped run gives its worker slot back when its work stops, not
when its terminal row is written, so no client is turned away; every run still ends stored in a
terminal state, and no permit, run task or open stream is left. (Issue 18 saw 259-268 x 503 here.)"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI

from api.app import create_app
from api.settings import Settings
from tests.support import storm
from tests.support.live_server import live_server

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
async def served(app_database_url: str) -> AsyncIterator[tuple[FastAPI, str]]:
    settings = Settings(database_url=app_database_url, log_level="WARNING")
    assert settings.chat.max_workers == storm.CONCURRENCY + 1  # the default the storm sits just below
    app = create_app(settings)
    async with live_server(app) as url:
        yield app, url


async def test_a_disconnect_storm_below_the_worker_limit_turns_no_client_away(
    served: tuple[FastAPI, str],
) -> None:
    app, url = served
    result = await storm.storm(app, url)
    assert result.rejected == 0, f"{result.rejected} of {storm.RUNS} requests got 503"
    assert len(result.admitted) == storm.RUNS
    assert await storm.not_terminal(url, result.admitted) == []
    assert (result.permits_held, result.tasks_left, result.streams_open) == (0, 0, 0)
