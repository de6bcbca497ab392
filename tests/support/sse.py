"""Reading SSE streams in tests: complete named frames as (event, parsed JSON data)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from httpx_sse import aconnect_sse

Frame = tuple[str, Any]


async def post_stream(client: httpx.AsyncClient, path: str, body: Any) -> list[Frame]:
    """POST and read the whole (finite) stream; data is parsed as JSON, as every frame must be."""
    frames: list[Frame] = []
    async with aconnect_sse(client, "POST", path, json=body) as source:
        assert source.response.status_code == 200, source.response.text
        assert source.response.headers["content-type"].startswith("text/event-stream")
        async for event in source.aiter_sse():
            frames.append((event.event, json.loads(event.data)))
    return frames


def events_of(frames: list[Frame]) -> list[str]:
    return [name for name, _ in frames]


def only(frames: list[Frame], name: str) -> Any:
    found = [data for event, data in frames if event == name]
    assert len(found) == 1, f"expected exactly one {name}, got {len(found)}"
    return found[0]
