"""A minimal load client: one HTTP/1.1 request per run on a raw socket, the stream read to its end.

Where the bench measures the service's throughput on this 2-core machine (scale-out), the client's
own CPU competes with the workers for the same cores; httpx parsing every SSE line cost about a fifth
of a worker's CPU per run. This client writes the request bytes and reads until the chunked
terminator, like a C load tool would, and only checks that the `done` event arrived.
"""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import urlsplit

from bench.load import DEMO_QUESTION, RunTiming

_END_OF_CHUNKS = b"\r\n0\r\n\r\n"
_READ_BYTES = 65_536


def chat_request(url: str, query: str = DEMO_QUESTION) -> bytes:
    """The bytes of POST /api/chat with `query`, keeping the connection open."""
    host = urlsplit(url).netloc
    body = json.dumps({"query": query}).encode()
    head = (
        f"POST /api/chat HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Accept: text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class RawChatClient:
    """One keep-alive connection per concurrent worker; `run` sends one chat and reads it whole."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._host, self._port = parts.hostname or "127.0.0.1", parts.port or 80
        self._request = chat_request(url)
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def run(self, _: int = 0) -> RunTiming:
        reader, writer = self._idle.pop() if self._idle else await self._connect()
        started = time.perf_counter()
        seen = bytearray()
        try:
            writer.write(self._request)
            while not seen.endswith(_END_OF_CHUNKS):
                chunk = await reader.read(_READ_BYTES)
                if not chunk:
                    writer.close()
                    return RunTiming(latency_s=time.perf_counter() - started)
                seen += chunk
        except BaseException:
            writer.close()  # reset or cancelled mid-stream: the connection is not reusable
            raise
        self._idle.append((reader, writer))
        done = b"event: done" in seen
        status = 200 if seen.startswith(b"HTTP/1.1 200") else 0
        return RunTiming(
            latency_s=time.perf_counter() - started,
            events=["done"] if done else [],
            status_code=status,
        )

    async def close(self) -> None:
        for _, writer in self._idle:
            writer.close()
        self._idle.clear()

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(self._host, self._port)
