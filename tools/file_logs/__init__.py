"""A JSON-lines log file as a LogsSource: the neutral query is filtered directly, no translator."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from tools.base import EvidenceStatus, LogLine, LogQuery, SourceError, SourceHealth, TimeWindow


class FileLogs:
    """Lines of `{"ts", "service", "level", "message", ...}`; scalar fields are the stream labels."""

    def __init__(self, path: Path) -> None:
        self._path = path

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=self._path.is_file(), reason="" if self._path.is_file() else "no log file")

    async def now(self) -> datetime:
        return datetime.now(UTC)

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        lines = [line for line in self._lines() if window.start <= line.ts < window.end]
        return sorted({line.labels[label] for line in lines if label in line.labels})[:limit]

    async def query_range(self, query: LogQuery) -> list[LogLine]:
        if query.native is not None:
            raise SourceError("unsupported expression in fixture backend", status=EvidenceStatus.REJECTED)
        return [line for line in self._lines() if query.keeps(line)][: query.limit]

    def _lines(self) -> list[LogLine]:
        lines = []
        for text in self._path.read_text().splitlines():
            record = json.loads(text)
            labels = {k: str(v) for k, v in record.items() if k not in ("ts", "message") and not isinstance(v, dict | list)}
            lines.append(LogLine(datetime.fromisoformat(record["ts"]), labels, record["message"]))
        return sorted(lines, key=lambda line: line.ts, reverse=True)
