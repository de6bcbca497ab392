"""Fixtures shared by the integration tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.scripted_llm import ScriptedLLM, scripted_llm


@pytest.fixture
async def llm() -> AsyncIterator[ScriptedLLM]:
    """A fresh scripted OpenAI-compatible server for one test."""
    async with scripted_llm() as server:
        yield server
