"""Fixtures for browser tests: Debian's chromium (never a downloaded browser), a live fake API and
the real app.

The browser and the fake API's uvicorn server live for the whole session on one event loop; each test
gets a fresh browser context (empty sessionStorage) and a reset `FakeApi`. The real app (rule-based
analyst, bundled demo world, a temp SQLite database) is started once per module that asks for it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright

from api.app import create_app
from api.settings import Settings
from tests.conftest import IN_CI
from tests.support.fake_api import FakeApi, create_fake_api
from tests.support.live_server import live_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    """Debian's chromium; when it is missing, skip locally and fail in CI."""
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: install Debian's chromium package"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser(chromium_path: Path) -> AsyncIterator[Browser]:
    """One headless chromium for the session; never a downloaded browser."""
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=str(chromium_path), args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


# Real sockets, because the pages read the SSE body as a stream, chunk by chunk.
serving = live_server


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def fake_server() -> AsyncIterator[tuple[FakeApi, str]]:
    """The fake API on a real uvicorn server inside the session loop."""
    fake = FakeApi()
    async with serving(create_fake_api(fake)) as url:
        yield fake, url


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def real_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """The real app (demo world, rule-based analyst, a fresh SQLite file) served for one module."""
    database = tmp_path_factory.mktemp("real-app") / "superbiz.db"
    settings = Settings(database_url=f"sqlite+aiosqlite:///{database}")
    async with serving(create_app(settings)) as url:  # uvicorn runs the app's lifespan
        yield url


@pytest.fixture
def fake(fake_server: tuple[FakeApi, str]) -> FakeApi:
    """The fake API's state, reset for this test."""
    fake_server[0].reset()
    return fake_server[0]


@pytest.fixture
def base_url(fake_server: tuple[FakeApi, str]) -> str:
    """Where the fake API (and the frontend) is served."""
    return fake_server[1]


@pytest_asyncio.fixture(loop_scope="session")
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A page in a fresh context; any uncaught page error fails the test."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    opened = await context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    await context.close()
    assert not errors, f"uncaught errors in the page: {errors}"
