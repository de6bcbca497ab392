"""App fixtures: a real app (lifespan and all) on a temporary SQLite database, driven in-process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from api.app import create_app
from api.settings import Settings

AppAndClient = tuple[FastAPI, httpx.AsyncClient]
MakeClient = Callable[..., AbstractAsyncContextManager[AppAndClient]]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'app.db'}")


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


@pytest.fixture
def make_client(
    tmp_path: Path,
) -> Callable[..., AbstractAsyncContextManager[tuple[FastAPI, httpx.AsyncClient]]]:
    """An app built from settings overrides (e.g. `chat={"max_tool_calls": 1}`), with its client."""

    @asynccontextmanager
    async def build(**overrides: Any) -> AsyncIterator[AppAndClient]:
        values = {"database_url": f"sqlite+aiosqlite:///{tmp_path / 'custom.db'}", **overrides}
        settings = Settings(**values)
        application = create_app(settings)
        async with application.router.lifespan_context(application):
            transport = httpx.ASGITransport(app=application)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
                yield application, http

    return build
