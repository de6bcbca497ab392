"""Serve a world's logs through LogsSource, filtering the lines directly by the neutral query.

Lines are returned newest first (Loki's default direction, backward) within [start, end).
"""

from __future__ import annotations

from datetime import datetime

from tools.base import EvidenceStatus, LogLine, LogQuery, SourceError, SourceHealth, TimeWindow
from tools.world import World


class LokiFixture:
    """The world's log lines as a LogsSource."""

    def __init__(self, world: World) -> None:
        self._world = world
        # Newest first, labels computed once: every query walks this list.
        self._lines = [
            LogLine(ts=line.ts, labels=line.labels(), message=line.message) for line in reversed(world.logs)
        ]

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    async def now(self) -> datetime:
        return self._world.now

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        """Distinct values of a stream label over the lines in the window, sorted."""
        values = {
            line.labels[label] for line in self._lines if label in line.labels and _within(line, window)
        }
        return sorted(values)[:limit]

    async def query_range(self, query: LogQuery) -> list[LogLine]:
        if query.native is not None:
            # A world has no query language of its own; the neutral filters are all it serves.
            raise SourceError(
                "unsupported expression in fixture backend (service, level and contains only)",
                status=EvidenceStatus.REJECTED,
            )
        if query.window.end < query.window.start:
            raise SourceError("the window ends before it starts", status=EvidenceStatus.REJECTED)
        selected: list[LogLine] = []
        for line in reversed(self._lines) if query.oldest_first else self._lines:
            if len(selected) >= query.limit:
                break
            if query.keeps(line):
                selected.append(line)
        return selected


def _within(line: LogLine, window: TimeWindow) -> bool:
    return window.start <= line.ts < window.end
