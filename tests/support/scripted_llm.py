"""A scripted OpenAI-compatible chat-completions server for tests that drive the real `ChatOpenAI`.

A Starlette app on uvicorn, on a free 127.0.0.1 port, started inside the test's event loop:

    async with scripted_llm() as llm:
        llm.script("Draft", ToolCall({"summary": "..."}))   # answer the next request for tool "Draft"
        llm.push(Text("hello"))                              # any request (used when no tool queue fits)
        model = ChatOpenAI(base_url=llm.base_url, api_key="test", model="scripted", ...)

Steps: `Text` (plain assistant message, streamed when the request asks), `ToolCall` (function-calling
structured output: `tool_calls[].function.arguments` as a JSON string), `HttpError` (status + error
body), `Malformed` (a tool call whose arguments are not JSON), `Sleep` (hold the request open until
the client disconnects or the time passes; `disconnects` counts the disconnects seen), `Garbage`
(HTTP 200 with a body that is no completion). Every request
body is recorded in `requests`. A request with no scripted step gets HTTP 500 and is counted in
`unscripted`, so a test never silently reuses an answer.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.live_server import live_server


@dataclass(frozen=True, slots=True)
class Text:
    content: str
    prompt_tokens: int = 10
    completion_tokens: int = 5


@dataclass(frozen=True, slots=True)
class ToolCall:
    """Arguments of a function call; `name` defaults to the tool the request forced."""

    arguments: Mapping[str, Any]
    name: str | None = None
    prompt_tokens: int = 100
    completion_tokens: int = 50


@dataclass(frozen=True, slots=True)
class HttpError:
    status: int = 500
    message: str = "scripted failure"


@dataclass(frozen=True, slots=True)
class Malformed:
    """A tool call whose `arguments` string is not valid JSON."""

    name: str | None = None
    raw: str = '{"summary": "unterminated'


@dataclass(frozen=True, slots=True)
class Sleep:
    """Hold the request open up to `seconds`, polling for a client disconnect."""

    seconds: float = 30.0


@dataclass(frozen=True, slots=True)
class Garbage:
    """HTTP 200 whose body is not a chat completion at all (a proxy's HTML page, say)."""

    body: str = "<html><body>502 Bad Gateway</body></html>"


Step = Text | ToolCall | HttpError | Malformed | Sleep | Garbage


@dataclass
class ScriptedLLM:
    """The server's script and what it observed."""

    base_url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    disconnects: int = 0
    unscripted: int = 0
    _any: deque[Step] = field(default_factory=deque)
    _by_tool: dict[str, deque[Step]] = field(default_factory=dict)
    _in_flight: int = 0

    def push(self, *steps: Step) -> None:
        """Steps for any request, in order (used when the forced tool has no queue of its own)."""
        self._any.extend(steps)

    def script(self, tool: str, *steps: Step) -> None:
        """Steps for requests that force the function `tool` (e.g. "Route", "Plan", "Draft")."""
        self._by_tool.setdefault(tool, deque()).extend(steps)

    def requests_for(self, tool: str) -> list[dict[str, Any]]:
        return [body for body in self.requests if forced_tool(body) == tool]

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def _next(self, body: Mapping[str, Any]) -> Step | None:
        queue = self._by_tool.get(forced_tool(body) or "")
        if queue:
            return queue.popleft()
        return self._any.popleft() if self._any else None


def forced_tool(body: Mapping[str, Any]) -> str | None:
    """The function name a request forces through `tool_choice`, if any."""
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping):
        function = choice.get("function")
        if isinstance(function, Mapping):
            return str(function.get("name"))
    tools = body.get("tools") or []
    if len(tools) == 1 and isinstance(tools[0], Mapping):
        return str(tools[0].get("function", {}).get("name"))
    return None


def create_app(llm: ScriptedLLM) -> Starlette:
    async def completions(request: Request) -> Response:
        body = await request.json()
        llm.requests.append(body)
        step = llm._next(body)
        if step is None:
            llm.unscripted += 1
            return _error(500, "no scripted step for this request")
        llm._in_flight += 1
        try:
            return await _answer(llm, request, body, step)
        finally:
            llm._in_flight -= 1

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


async def _answer(llm: ScriptedLLM, request: Request, body: dict[str, Any], step: Step) -> Response:
    model = str(body.get("model", "scripted"))
    if isinstance(step, HttpError):
        return _error(step.status, step.message)
    if isinstance(step, Garbage):
        return Response(step.body, status_code=200, media_type="text/html")
    if isinstance(step, Sleep):
        deadline = time.monotonic() + step.seconds
        while time.monotonic() < deadline:
            if await request.is_disconnected():
                llm.disconnects += 1
                return Response(status_code=499)
            await asyncio.sleep(0.02)
        return _error(504, "scripted sleep ended")
    if isinstance(step, Text):
        text: dict[str, Any] = {"role": "assistant", "content": step.content}
        usage = (step.prompt_tokens, step.completion_tokens)
        if body.get("stream"):
            return _streamed(model, step.content, usage)
        return _completion(model, text, "stop", usage)
    name = step.name or forced_tool(body) or "unknown"
    arguments = step.raw if isinstance(step, Malformed) else json.dumps(step.arguments)
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}
    message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
    usage = (step.prompt_tokens, step.completion_tokens) if isinstance(step, ToolCall) else (10, 5)
    return _completion(model, message, "tool_calls", usage)


def _completion(model: str, message: dict[str, Any], finish: str, usage: tuple[int, int]) -> JSONResponse:
    return JSONResponse(
        {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": usage[0] + usage[1],
            },
        }
    )


def _streamed(model: str, content: str, usage: tuple[int, int]) -> StreamingResponse:
    async def chunks() -> AsyncIterator[str]:
        base = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "model": model,
            "created": int(time.time()),
        }
        delta = {"role": "assistant", "content": content}
        yield "data: " + json.dumps({**base, "choices": [{"index": 0, "delta": delta}]}) + "\n\n"
        done = {"index": 0, "delta": {}, "finish_reason": "stop"}
        yield "data: " + json.dumps({**base, "choices": [done]}) + "\n\n"
        yield "data: [DONE]\n\n"

    return StreamingResponse(chunks(), media_type="text/event-stream")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": "server_error", "code": None}}, status_code=status
    )


@asynccontextmanager
async def scripted_llm() -> AsyncIterator[ScriptedLLM]:
    """Serve a fresh script on a free port inside the running event loop for the block."""
    llm = ScriptedLLM()
    async with live_server(create_app(llm)) as url:
        llm.base_url = f"{url}/v1"
        yield llm
