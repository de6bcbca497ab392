"""Session context: the bounded multi-turn history of a chat session, in Redis or in-process.

Both stores keep at most `max_turns` turns of at most `max_turn_bytes` each (an oversize turn has
its longest text fields truncated; one that still does not fit is refused), return at most
`max_history_bytes` of the newest turns, and forget a session `ttl_s` after its last append.
A Redis outage never raises: reads answer "no history" with `degraded=True`.
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

TRUNCATION_MARK = "…[truncated]"


@dataclass(frozen=True, slots=True)
class ContextBounds:
    """Limits of one store (the composition root maps `RedisSettings` onto them)."""

    ttl_s: float
    max_turns: int
    max_turn_bytes: int
    max_history_bytes: int


@dataclass(frozen=True, slots=True)
class ContextResult:
    """A session's turns, oldest first; `degraded` when the store could not be read."""

    turns: list[dict[str, Any]] = field(default_factory=list)
    degraded: bool = False


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What happened to an appended turn."""

    stored: bool
    truncated: bool = False
    degraded: bool = False


@runtime_checkable
class SessionContextStore(Protocol):
    """The multi-turn context of chat sessions."""

    async def append_turn(self, *, session_id: str, turn: Mapping[str, Any]) -> AppendResult: ...
    async def history(self, *, session_id: str) -> ContextResult: ...
    async def clear(self, *, session_id: str) -> None: ...
    async def ping(self) -> bool: ...
    async def aclose(self) -> None: ...


def encode_turn(turn: Mapping[str, Any], max_bytes: int) -> tuple[str | None, bool]:
    """The turn as JSON within `max_bytes` (None if it cannot fit) and whether it was truncated."""
    data = dict(turn)
    text = _dumps(data)
    truncated = False
    string_keys = [key for key, value in data.items() if isinstance(value, str)]
    for _round in range(len(string_keys) + 1):
        excess = len(text.encode()) - max_bytes
        if excess <= 0:
            return text, truncated
        longest = max(string_keys, key=lambda key: len(data[key]), default=None)
        if longest is None or not data[longest]:
            break
        data[longest] = _cut_bytes(data[longest], excess + len(TRUNCATION_MARK.encode()))
        text = _dumps(data)
        truncated = True
    return (text, truncated) if len(text.encode()) <= max_bytes else (None, truncated)


def _cut_bytes(value: str, drop: int) -> str:
    """`value` shortened by at least `drop` UTF-8 bytes, marked; removing a character frees at
    least its UTF-8 size in the JSON text, so one cut removes the whole excess."""
    raw = value.encode()
    keep = len(raw) - drop
    if keep <= 0:
        return ""
    return raw[:keep].decode(errors="ignore") + TRUNCATION_MARK


def newest_within(encoded: Iterable[str | bytes], max_bytes: int) -> list[dict[str, Any]]:
    """Decode the newest turns whose total size stays within `max_bytes`, oldest first."""
    kept: list[dict[str, Any]] = []
    total = 0
    for entry in reversed(list(encoded)):
        text = entry if isinstance(entry, str) else entry.decode(errors="replace")
        size = len(text.encode())
        if total + size > max_bytes:
            break
        try:
            turn = json.loads(text)
        except ValueError:
            continue  # a foreign or corrupt entry is skipped, not fatal
        if isinstance(turn, dict):
            kept.append(turn)
            total += size
    kept.reverse()
    return kept


def _dumps(turn: Mapping[str, Any]) -> str:
    return json.dumps(turn, ensure_ascii=False, separators=(",", ":"))


class RedisContextStore:
    """Session context in Redis: one list per session, appended, trimmed and expired atomically."""

    def __init__(self, client: Redis, *, bounds: ContextBounds, key_prefix: str = "superbiz:") -> None:
        self._client = client
        self._bounds = bounds
        self._prefix = key_prefix

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        bounds: ContextBounds,
        socket_timeout_s: float,
        key_prefix: str = "superbiz:",
    ) -> RedisContextStore:
        """A store with its own client (connects lazily, on first use)."""
        client = Redis.from_url(
            url,
            decode_responses=True,
            socket_timeout=socket_timeout_s,
            socket_connect_timeout=socket_timeout_s,
        )
        return cls(client, bounds=bounds, key_prefix=key_prefix)

    def _key(self, session_id: str) -> str:
        return f"{self._prefix}context:{session_id}"

    async def append_turn(self, *, session_id: str, turn: Mapping[str, Any]) -> AppendResult:
        """Append, keep the newest `max_turns`, restart the TTL; all or nothing (MULTI/EXEC)."""
        text, truncated = encode_turn(turn, self._bounds.max_turn_bytes)
        if text is None:
            return AppendResult(stored=False, truncated=truncated)
        key = self._key(session_id)
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.rpush(key, text)
                pipe.ltrim(key, -self._bounds.max_turns, -1)
                pipe.pexpire(key, int(self._bounds.ttl_s * 1000))
                await pipe.execute()
        except RedisError as error:
            log.warning("session context append degraded: %s", type(error).__name__)
            return AppendResult(stored=False, truncated=truncated, degraded=True)
        return AppendResult(stored=True, truncated=truncated)

    async def history(self, *, session_id: str) -> ContextResult:
        """The newest turns within the byte bound; no history and `degraded` when Redis fails."""
        try:
            encoded = await self._client.lrange(self._key(session_id), 0, -1)
        except RedisError as error:
            log.warning("session context read degraded: %s", type(error).__name__)
            return ContextResult(turns=[], degraded=True)
        return ContextResult(turns=newest_within(encoded, self._bounds.max_history_bytes))

    async def clear(self, *, session_id: str) -> None:
        """Forget the session's context (best effort when Redis is down)."""
        try:
            await self._client.delete(self._key(session_id))
        except RedisError as error:
            log.warning("session context clear failed: %s", type(error).__name__)

    async def ping(self) -> bool:
        """Whether Redis answers."""
        try:
            return bool(await self._client.ping())
        except RedisError:
            return False

    async def aclose(self) -> None:
        """Close the client's connections."""
        await self._client.aclose()


@dataclass(slots=True)
class _Context:
    turns: deque[str]
    expires_at: float


class InProcessContextStore:
    """Session context in this process: LRU-bounded sessions, lazily expired (the default)."""

    def __init__(
        self,
        *,
        bounds: ContextBounds,
        max_sessions: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._bounds = bounds
        self._max_sessions = max_sessions
        self._clock = clock
        self._contexts: OrderedDict[str, _Context] = OrderedDict()

    def _live(self, session_id: str) -> _Context | None:
        context = self._contexts.get(session_id)
        if context is not None and context.expires_at <= self._clock():
            del self._contexts[session_id]
            return None
        return context

    async def append_turn(self, *, session_id: str, turn: Mapping[str, Any]) -> AppendResult:
        """Append, keep the newest `max_turns`, restart the TTL, evict the least recent session."""
        text, truncated = encode_turn(turn, self._bounds.max_turn_bytes)
        if text is None:
            return AppendResult(stored=False, truncated=truncated)
        context = self._live(session_id)
        if context is None:
            context = _Context(turns=deque(maxlen=self._bounds.max_turns), expires_at=0.0)
            self._contexts[session_id] = context
        context.turns.append(text)
        context.expires_at = self._clock() + self._bounds.ttl_s
        self._contexts.move_to_end(session_id)
        while len(self._contexts) > self._max_sessions:
            self._contexts.popitem(last=False)
        return AppendResult(stored=True, truncated=truncated)

    async def history(self, *, session_id: str) -> ContextResult:
        """The newest turns within the byte bound (never degraded)."""
        context = self._live(session_id)
        if context is None:
            return ContextResult(turns=[])
        self._contexts.move_to_end(session_id)
        return ContextResult(turns=newest_within(context.turns, self._bounds.max_history_bytes))

    async def clear(self, *, session_id: str) -> None:
        """Forget the session's context."""
        self._contexts.pop(session_id, None)

    async def ping(self) -> bool:
        """Always reachable."""
        return True

    async def aclose(self) -> None:
        """Drop every context."""
        self._contexts.clear()

    def __len__(self) -> int:
        return len(self._contexts)
