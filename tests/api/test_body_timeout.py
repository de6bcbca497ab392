"""A request body that does not arrive in time is 408 REQUEST_TIMEOUT and the connection is closed
(30 half-sent requests were held over 80 s); a complete body, or a slow but timely one, is unaffected."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.live_server import live_server

HALF_SENT = 30


async def _send_partial(port: int, path: str, declared: int, sent: bytes) -> bytes:
    """Headers and the first bytes of a body; returns whatever the server answers before it closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            f"Content-Length: {declared}\r\n\r\n"
        )
        writer.write(head.encode() + sent)
        await writer.drain()
        # Bounded only so that a regression fails instead of hanging the suite.
        return await asyncio.wait_for(reader.read(), 30)
    finally:
        writer.close()


def _status_and_body(raw: bytes) -> tuple[int, dict[str, object], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body), head.lower()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'timeout.db'}", chat={"body_read_timeout_s": 0.5}
    )


async def test_half_sent_bodies_are_408_and_closed_then_the_server_still_serves(settings: Settings) -> None:
    async with live_server(create_app(settings)) as url:
        port = int(url.rsplit(":", 1)[1])
        paths = ["/api/chat", "/api/ai_ops", "/api/feedback"]
        answers = await asyncio.gather(
            *(_send_partial(port, paths[i % 3], 200, b'{"query": "why') for i in range(HALF_SENT))
        )
        for raw in answers:
            status, body, head = _status_and_body(raw)
            assert status == 408
            assert body == {
                "code": "REQUEST_TIMEOUT",
                "message": "The request body was not received in time.",
                "data": None,
            }
            assert b"connection: close" in head
        complete = b'{"sessionId": "s", "runId": "r", "useful": true}'
        raw = await _send_partial(port, "/api/feedback", len(complete), complete)
        assert _status_and_body(raw)[0] == 404  # read in full and answered: the run does not exist


async def test_a_body_trickling_in_within_the_deadline_is_read(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'slow.db'}", chat={"body_read_timeout_s": 5.0}
    )
    body = b'{"sessionId": "s", "runId": "r", "useful": true}'
    async with live_server(create_app(settings)) as url:
        reader, writer = await asyncio.open_connection("127.0.0.1", int(url.rsplit(":", 1)[1]))
        try:
            writer.write(
                b"POST /api/feedback HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            )
            for start in range(0, len(body), 16):
                writer.write(body[start : start + 16])
                await writer.drain()
                await asyncio.sleep(0.1)
            raw = await asyncio.wait_for(reader.read(), 30)
        finally:
            writer.close()
    assert _status_and_body(raw)[0] == 404
