"""Where evidence lives: the per-run store that assigns ids under a byte budget, and the
process-wide cache that lets identical calls from concurrent runs share one backend call.

The cache holds `ToolOutcome`s (an evidence item without its id): ids are per run.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tools.base import Evidence, EvidenceSource, EvidenceStatus

BUDGET_EXHAUSTED = "Evidence budget of this run is exhausted; the result was not kept."


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """A bounded tool result before it is filed in a run (no id yet)."""

    source: EvidenceSource
    tool: str
    title: str
    summary: str
    data: Mapping[str, Any]
    query: Mapping[str, Any]
    status: EvidenceStatus
    duration_ms: float = 0.0
    bytes: int = 0
    truncated: bool = False


@dataclass(slots=True)
class RunEvidence:
    """Evidence of one run: ids `<source>-<n>`, and a byte budget over the data kept.

    A call takes its id when it starts (`reserve`), so ids and order follow the plan, not which
    concurrent call happened to finish first: the same question on the same data gives the same
    ids, digest and prompt.
    """

    budget_bytes: int
    # Whose run this is: tools that answer per principal (the case library) read only theirs.
    # None is a run without authentication.
    principal: str | None = None
    # Tells runs apart in the shared cache: live state (alerts) is shared only within one run.
    run_key: str = field(default_factory=lambda: uuid.uuid4().hex)
    # When the run made its first call, on the shared cache's clock (`EvidenceCache.now`): answers
    # computed well before it are not served to it.
    opened_at: float | None = None
    _items: dict[str, Evidence | None] = field(default_factory=dict)
    _counters: dict[EvidenceSource, int] = field(default_factory=dict)
    _total_bytes: int = 0

    @property
    def total_bytes(self) -> int:
        return self._total_bytes

    def reserve(self, source: EvidenceSource) -> str:
        """The next id of `source`, held in plan order until its outcome is recorded."""
        number = self._counters.get(source, 0) + 1
        self._counters[source] = number
        evidence_id = f"{source.value}-{number}"
        self._items[evidence_id] = None
        return evidence_id

    def record(self, outcome: ToolOutcome, evidence_id: str | None = None) -> Evidence:
        """File an outcome under its reserved id (or a new one); past the budget it is kept as
        REJECTED with no data."""
        if evidence_id is None:
            evidence_id = self.reserve(outcome.source)
        if self._total_bytes + outcome.bytes > self.budget_bytes:
            evidence = Evidence(
                id=evidence_id,
                source=outcome.source,
                tool=outcome.tool,
                title=outcome.title,
                summary=BUDGET_EXHAUSTED,
                data={},
                query=outcome.query,
                status=EvidenceStatus.REJECTED,
                duration_ms=outcome.duration_ms,
                bytes=0,
                truncated=True,
            )
        else:
            self._total_bytes += outcome.bytes
            evidence = Evidence(id=evidence_id, **_outcome_fields(outcome))
        self._items[evidence_id] = evidence
        return evidence

    def get(self, evidence_id: str) -> Evidence | None:
        return self._items.get(evidence_id)

    def all(self) -> list[Evidence]:
        """Every recorded item in plan order (calls still in flight are left out)."""
        return [item for item in self._items.values() if item is not None]


def _outcome_fields(outcome: ToolOutcome) -> dict[str, Any]:
    return {
        "source": outcome.source,
        "tool": outcome.tool,
        "title": outcome.title,
        "summary": outcome.summary,
        "data": outcome.data,
        "query": outcome.query,
        "status": outcome.status,
        "duration_ms": outcome.duration_ms,
        "bytes": outcome.bytes,
        "truncated": outcome.truncated,
    }


# Runs that open within this of each other share answers (a storm of identical questions); a question
# asked later reads the sources again, so it never misses lines written after an earlier question read
# (an error that began four seconds before it was asked).
FRESH_SLACK_S = 1.0


class EvidenceCache:
    """TTL + capacity LRU of outcomes, with single-flight: concurrent identical keys share one call.

    Only answers (OK / EMPTY) are kept; failures are retried by the next caller.
    """

    def __init__(
        self,
        *,
        ttl_s: float,
        capacity: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl_s = ttl_s
        self._capacity = capacity
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, ToolOutcome]] = OrderedDict()
        self._in_flight: dict[str, asyncio.Task[ToolOutcome]] = {}
        self._next_sweep = clock() + ttl_s

    def __len__(self) -> int:
        return len(self._entries)

    def now(self) -> float:
        return self._clock()

    async def get_or_compute(
        self, key: str, compute: Callable[[], Awaitable[ToolOutcome]], *, fresh_since: float | None = None
    ) -> ToolOutcome:
        """Return the cached outcome for `key` (when computed at or after `fresh_since`), join a call
        in flight, or start one."""
        cached = self._lookup(key, fresh_since)
        if cached is not None:
            return cached
        task = self._in_flight.get(key)
        if task is None:
            task = asyncio.ensure_future(compute())
            self._in_flight[key] = task
            task.add_done_callback(lambda done: self._settle(key, done))
        # Shielded: one cancelled run must not cancel the call other runs are waiting on.
        return await asyncio.shield(task)

    def _lookup(self, key: str, fresh_since: float | None) -> ToolOutcome | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires_at, outcome = entry
        if self._clock() >= expires_at:
            del self._entries[key]
            return None
        if fresh_since is not None and expires_at - self._ttl_s < fresh_since:
            return None  # older than the asking run: read again (the newer answer replaces it)
        self._entries.move_to_end(key)
        return outcome

    def _settle(self, key: str, task: asyncio.Task[ToolOutcome]) -> None:
        self._in_flight.pop(key, None)
        if task.cancelled() or task.exception() is not None:
            return
        outcome = task.result()
        if not outcome.status.succeeded:
            return
        now = self._clock()
        self._sweep(now)
        self._entries[key] = (now + self._ttl_s, outcome)
        self._entries.move_to_end(key)
        while len(self._entries) > self._capacity:
            self._entries.popitem(last=False)

    def _sweep(self, now: float) -> None:
        # Keys scoped to one run (live alert state) are never asked for again, so a lookup never
        # drops them: without a sweep they would fill the cache to `capacity` with dead answers.
        # At most one pass per TTL keeps the cost amortised; entries live under two TTLs.
        if now < self._next_sweep:
            return
        self._next_sweep = now + self._ttl_s
        expired = [key for key, (expires_at, _) in self._entries.items() if now >= expires_at]
        for key in expired:
            del self._entries[key]
