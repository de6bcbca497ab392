"""The scripted OpenAI-compatible server itself, as other suites will use it with ChatOpenAI."""

from __future__ import annotations

import openai
import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tests.support.scripted_llm import HttpError, Text, scripted_llm

pytestmark = pytest.mark.llm


def _model(base_url: str, **kwargs: object) -> ChatOpenAI:
    return ChatOpenAI(
        model="scripted", base_url=base_url, api_key=SecretStr("k"), use_responses_api=False, **kwargs
    )


async def test_text_answers_plain_and_streamed_with_usage() -> None:
    async with scripted_llm() as llm:
        llm.push(Text("pong"), Text("streamed pong"))
        model = _model(llm.base_url, max_retries=0)
        reply = await model.ainvoke("ping")
        assert reply.content == "pong"
        assert reply.usage_metadata is not None and reply.usage_metadata["total_tokens"] == 15
        chunks = [chunk.content async for chunk in model.astream("ping")]
        assert "".join(str(c) for c in chunks) == "streamed pong"
        assert llm.requests[1]["stream"] is True and llm.unscripted == 0


async def test_http_errors_are_retried_by_the_client_layer_only() -> None:
    async with scripted_llm() as llm:
        llm.push(HttpError(500), HttpError(500))
        with pytest.raises(openai.InternalServerError):
            await _model(llm.base_url, max_retries=1).ainvoke("ping")
        assert len(llm.requests) == 2


async def test_unscripted_request_fails_loudly() -> None:
    async with scripted_llm() as llm:
        with pytest.raises(openai.InternalServerError):
            await _model(llm.base_url, max_retries=0).ainvoke("ping")
        assert llm.unscripted == 1
