"""Fixtures shared by the integration tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping

import pytest
import uvloop

from tests.support.scripted_llm import ScriptedLLM, scripted_llm


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> Mapping[str, Callable[[], asyncio.AbstractEventLoop]]:
    """Integration tests run on uvloop, the loop `superbiz serve` runs on: disconnects, keep-alives
    and cancellation are checked on the production loop (the unit suites keep asyncio's own)."""
    return {"uvloop": uvloop.new_event_loop}


@pytest.fixture
async def llm() -> AsyncIterator[ScriptedLLM]:
    """A fresh scripted OpenAI-compatible server for one test."""
    async with scripted_llm() as server:
        yield server
