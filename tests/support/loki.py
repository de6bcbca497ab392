"""A Loki-shaped HTTP server over a world's logs (Loki is not packaged in Debian).

It answers `/ready`, `/loki/api/v1/query_range` and `/loki/api/v1/label/<name>/values` with
Loki's documented JSON shapes, evaluating the LogQL subset of `tests.support.logql` over the
world fixture's lines. Malformed queries get Loki's answer: HTTP 400 with a plain-text message.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.logql import LogQueryError, parse_log_query
from tools.base import LogLine, LogQuery, TimeWindow
from tools.loki.client import from_nanoseconds, to_nanoseconds
from tools.loki.fixture import LokiFixture
from tools.world import World

_LABEL_VALUES = "/loki/api/v1/label/"


class FakeLoki(ThreadingHTTPServer):
    """The server; `requests` records every query string it answered, for tests to inspect."""

    def __init__(self, world: World) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.logs = LokiFixture(world)
        self.requests: list[dict[str, list[str]]] = []

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


@contextmanager
def running_loki(world: World) -> Iterator[FakeLoki]:
    """Serve the world's logs on a free port for the duration of the block."""
    server = FakeLoki(world)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    server: FakeLoki

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        self.server.requests.append({"path": [parts.path], **query})
        if parts.path == "/ready":
            self._send(200, b"ready\n", "text/plain")
        elif parts.path == "/loki/api/v1/query_range":
            self._query_range(query)
        elif parts.path.startswith(_LABEL_VALUES) and parts.path.endswith("/values"):
            self._label_values(parts.path[len(_LABEL_VALUES) : -len("/values")], query)
        else:
            self._send(404, b"404 page not found\n", "text/plain")

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: test output stays readable."""

    def _query_range(self, query: dict[str, list[str]]) -> None:
        window = _window(query)
        limit = int(_first(query, "limit", "100"))
        try:
            logql = parse_log_query(_first(query, "query", ""))
        except LogQueryError:
            self._send(400, b"parse error : syntax error: unexpected input\n", "text/plain")
            return
        # Every line of the window, newest first, then LogQL's selection of them.
        everything = LogQuery(window=window, limit=10**9)
        lines = [
            line
            for line in asyncio.run(self.server.logs.query_range(everything))
            if logql.matches(line.labels, line.message)
        ]
        # As Loki does: `forward` reads from the window's start, so the limit keeps the oldest lines.
        if _first(query, "direction", "backward") == "forward":
            lines.reverse()
        lines = lines[:limit]
        data = {"resultType": "streams", "result": _streams(lines), "stats": {}}
        self._send_json({"status": "success", "data": data})

    def _label_values(self, label: str, query: dict[str, list[str]]) -> None:
        values = asyncio.run(self.server.logs.label_values(label=label, window=_window(query), limit=10_000))
        # Loki answers `"data": null` rather than an empty list for an unknown label.
        self._send_json({"status": "success", "data": values or None})

    def _send_json(self, body: Any) -> None:
        self._send(200, json.dumps(body).encode(), "application/json")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _streams(lines: list[LogLine]) -> list[dict[str, Any]]:
    streams: dict[tuple[tuple[str, str], ...], list[list[str]]] = {}
    for line in lines:
        key = tuple(sorted(line.labels.items()))
        streams.setdefault(key, []).append([str(to_nanoseconds(line.ts)), line.message])
    return [{"stream": dict(key), "values": values} for key, values in streams.items()]


def _window(query: dict[str, list[str]]) -> TimeWindow:
    """Loki's defaults: end is now, start an hour before end."""
    now = to_nanoseconds(datetime.now(UTC))
    end = int(_first(query, "end", str(now)))
    start = int(_first(query, "start", str(end - 3_600_000_000_000)))
    return TimeWindow(start=from_nanoseconds(start), end=from_nanoseconds(end))


def _first(query: dict[str, list[str]], name: str, default: str) -> str:
    return query.get(name, [default])[0]
