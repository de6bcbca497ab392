"""The model boundary: ChatOpenAI built from plain config, and the shared gate bounding concurrent calls."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from graph.analysts.base import AnalystUnavailable


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """What the composition root maps from `settings.model`."""

    base_url: str
    model: str
    api_key: str = "unused"
    timeout_s: float = 30.0
    max_retries: int = 1
    temperature: float = 0.0
    max_output_tokens: int = 2_000
    max_concurrent_calls: int = 8
    acquire_timeout_s: float = 2.0


def build_chat_model(config: ModelConfig) -> ChatOpenAI:
    """ChatOpenAI on the chat-completions API only; one retry layer (the client's), explicit timeout."""
    return ChatOpenAI(
        model=config.model,
        base_url=config.base_url,
        api_key=SecretStr(config.api_key),
        timeout=config.timeout_s,
        max_retries=config.max_retries,
        temperature=config.temperature,
        max_completion_tokens=config.max_output_tokens,
        use_responses_api=False,
    )


class ModelGate:
    """Bounds concurrent model calls across all runs; a full gate is a controlled failure, not a queue."""

    def __init__(self, limit: int, *, acquire_timeout_s: float) -> None:
        self._slots = asyncio.Semaphore(limit)
        self._acquire_timeout_s = acquire_timeout_s

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        try:
            await asyncio.wait_for(self._slots.acquire(), self._acquire_timeout_s)
        except TimeoutError:
            raise AnalystUnavailable("saturated") from None
        try:
            yield
        finally:
            self._slots.release()
