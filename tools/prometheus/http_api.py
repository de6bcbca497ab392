"""Bounded JSON over HTTP for the Prometheus family of APIs (Prometheus, Alertmanager, Loki).

Every request has a timeout and reads at most `max_bytes` of body, streaming and stopping at the
cap. Failures become SourceError with a public message built only from the status code and the
API's documented error type; the backend's own error text goes to the log, never to a client.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from tools.base import EvidenceStatus, SourceError, SourceHealth

logger = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 8 * 1_048_576
_ERROR_DETAIL_BYTES = 4_096
# Prometheus's documented `errorType` values; anything else is not echoed.
_KNOWN_ERROR_TYPES = frozenset(
    {"bad_data", "timeout", "canceled", "execution", "internal", "unavailable", "not_found"}
)
# Identity encoding: a compressed body could expand far beyond the cap inside a single chunk.
_HEADERS = {"Accept-Encoding": "identity", "Accept": "application/json"}

Params = Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class HttpApi:
    """One backend's base URL on the shared client, with its bounds and a name for messages."""

    client: httpx.AsyncClient
    base_url: str
    source: str  # e.g. "metrics backend": how public messages name it
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout_s: float = 10.0

    async def get_data(self, path: str, params: Params = ()) -> Any:
        """GET a `{"status": "success", "data": ...}` envelope and return its data."""
        body = await self.get_json(path, params)
        if not isinstance(body, dict) or body.get("status") != "success" or "data" not in body:
            raise SourceError(f"{self.source} returned an unexpected response")
        return body["data"]

    async def get_json(self, path: str, params: Params = ()) -> Any:
        """GET and decode a JSON body."""
        raw = await self.get_bytes(path, params)
        try:
            return json.loads(raw)
        except ValueError as error:
            raise SourceError(f"{self.source} returned a response that is not JSON") from error

    async def get_bytes(self, path: str, params: Params = ()) -> bytes:
        """GET a body of at most `max_bytes`; larger bodies are refused without being read."""
        url = self.base_url.rstrip("/") + path
        try:
            async with self.client.stream(
                "GET", url, params=list(params), headers=_HEADERS, timeout=self.timeout_s
            ) as response:
                if response.status_code >= 400:
                    detail = await _read_capped(response, _ERROR_DETAIL_BYTES)
                    raise self._status_error(response.status_code, detail)
                declared = response.headers.get("Content-Length", "")
                if declared.isdigit() and int(declared) > self.max_bytes:
                    raise self._too_large()
                body = await _read_capped(response, self.max_bytes + 1)
                if len(body) > self.max_bytes:
                    raise self._too_large()
                return body
        except httpx.TimeoutException as error:
            raise SourceError(f"{self.source} timed out", status=EvidenceStatus.TIMEOUT) from error
        except httpx.ConnectError as error:
            raise SourceError(f"{self.source} is unreachable", status=EvidenceStatus.UNAVAILABLE) from error
        except httpx.HTTPError as error:
            logger.warning("%s request failed: %s", self.source, type(error).__name__)
            raise SourceError(f"{self.source} request failed") from error

    async def probe(self, path: str) -> SourceHealth:
        """Whether GET `path` answers 2xx; never raises."""
        try:
            await self.get_bytes(path)
        except SourceError as error:
            return SourceHealth(ok=False, reason=error.public)
        except httpx.InvalidURL:
            return SourceHealth(ok=False, reason=f"{self.source} URL is invalid")
        return SourceHealth(ok=True)

    def _status_error(self, status_code: int, detail: bytes) -> SourceError:
        text = detail[:500].decode(errors="replace")
        logger.warning("%s answered HTTP %d: %s", self.source, status_code, text)
        error_type = _error_type(detail)
        suffix = f", {error_type}" if error_type else ""
        if status_code in (400, 422):
            return SourceError(
                f"{self.source} rejected the query (HTTP {status_code}{suffix})",
                status=EvidenceStatus.REJECTED,
            )
        if error_type == "timeout" or status_code == 504:
            return SourceError(f"{self.source} timed out", status=EvidenceStatus.TIMEOUT)
        if status_code == 503:
            return SourceError(f"{self.source} is unavailable (HTTP 503)", status=EvidenceStatus.UNAVAILABLE)
        return SourceError(f"{self.source} failed (HTTP {status_code}{suffix})")

    def _too_large(self) -> SourceError:
        return SourceError(f"{self.source} response exceeded the {self.max_bytes}-byte cap")


async def _read_capped(response: httpx.Response, limit: int) -> bytes:
    """Read at most `limit` bytes of the body, then stop pulling from the network."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]


def _error_type(detail: bytes) -> str:
    try:
        body = json.loads(detail)
    except ValueError:
        return ""
    error_type = body.get("errorType") if isinstance(body, dict) else None
    return error_type if error_type in _KNOWN_ERROR_TYPES else ""


class HttpSource:
    """Base of the real backends: one bounded `HttpApi`, a readiness probe, the wall clock as now."""

    backend = "backend"  # the name used in safe error messages
    ready_path = "/-/ready"

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        timeout_s: float = 10.0,
    ) -> None:
        self._api = HttpApi(client, base_url, self.backend, max_bytes, timeout_s)

    async def health(self) -> SourceHealth:
        return await self._api.probe(self.ready_path)

    async def now(self) -> datetime:
        return datetime.now(UTC)
