"""A host's own log files (and, when configured, its systemd journal) as a LogsSource.

Files are named by globs mapped to identities (`{"postgres": "/var/log/postgresql/*.log"}`): every line
of a matching file (and of its rotations) belongs to that identity, its `service` label. Each file is
read from its end, entry by entry, until an entry older than the window, the query's limit or the
byte budget stops it; the format is detected per file (`formats.py`) and multi-line entries are kept
whole. Reads run in a worker thread: a query never blocks the event loop on disk.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain, islice
from pathlib import Path

from tools.base import EvidenceStatus, LogLine, LogQuery, SourceError, SourceHealth, TimeWindow
from tools.logfiles.formats import PLAIN, LogFormat, detect
from tools.logfiles.journal import Journal
from tools.logfiles.tail import BackwardLines, Budget, chains

DEFAULT_SCAN_BYTES = 32 * 1024 * 1024
_DETECT_LINES = 200
_MAX_CHAINS = 100
_MAX_ENTRY_LINES = 200
_MAX_ENTRY_CHARS = 32_000


@dataclass(frozen=True, slots=True)
class _Stream:
    identity: str
    files: Sequence[Path]  # newest first


def _entries(path: Path, budget: Budget) -> Iterator[LogLine]:
    """The entries of one file newest first, labelled with their level (no identity yet)."""
    lines = BackwardLines(path, budget)
    reading = iter(lines)
    sample = list(islice(reading, _DETECT_LINES))
    form = detect(sample)
    carry = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    # Read backwards, the lines after an entry's head arrive before it; kept nearest the head first.
    pending: deque[str] = deque(maxlen=_MAX_ENTRY_LINES)
    for line in chain(sample, reading):
        if form.ignored(line):
            continue
        head = form.head(line)
        if head is None:
            pending.append(line)
            continue
        continued = tuple(reversed(pending))
        pending.clear()
        text = "\n".join((head.message, *continued))
        carry = head.ts or form.entry_time("\n".join(continued)) or carry
        yield LogLine(ts=carry, labels={**head.labels, "level": head.level}, message=text[:_MAX_ENTRY_CHARS])
    if lines.reached_start:  # lines before the first head (a header, a cut entry): plain entries
        yield from _plain(pending, carry, PLAIN)


def _plain(pending: deque[str], at: datetime, form: LogFormat) -> Iterator[LogLine]:
    for line in pending:
        head = form.head(line)
        level = head.level if head else "info"
        yield LogLine(ts=at, labels={"level": level}, message=line[:_MAX_ENTRY_CHARS])


def _read_stream(stream: _Stream, window: TimeWindow, budget: Budget) -> Iterator[LogLine]:
    """The stream's entries inside the window, newest first; stops at the first older one."""
    for path in stream.files:
        try:
            if datetime.fromtimestamp(path.stat().st_mtime, UTC) < window.start:
                return  # last written before the window: this file and every older rotation
            for entry in _entries(path, budget):
                if entry.ts < window.start:
                    return
                if entry.ts < window.end:
                    yield LogLine(ts=entry.ts, labels={**entry.labels, "service": stream.identity},
                                  message=entry.message)  # fmt: skip
        except OSError:
            continue  # rotated away or unreadable since the glob ran: the other files still answer
        if budget.left <= 0:
            return


class LogFiles:
    """Configured log files by identity, optionally with the journal, as one LogsSource."""

    def __init__(
        self,
        files: Mapping[str, str | Sequence[str]],
        *,
        journal: Journal | None = None,
        scan_bytes: int = DEFAULT_SCAN_BYTES,
    ) -> None:
        self._globs = {
            identity: (patterns,) if isinstance(patterns, str) else tuple(patterns)
            for identity, patterns in files.items()
        }
        self._journal = journal
        self._scan_bytes = scan_bytes

    async def health(self) -> SourceHealth:
        streams = await asyncio.to_thread(self._streams, None)
        found = {stream.identity for stream in streams}
        missing = sorted(set(self._globs) - found)
        if self._journal is not None:
            journal = await self._journal.health()
            if not journal.ok and not found:
                return journal
        elif not found:
            return SourceHealth(ok=False, reason="no configured log file exists or is readable")
        return SourceHealth(ok=True, reason=f"no file for {', '.join(missing)}" if missing else "")

    async def now(self) -> datetime:
        return datetime.now(UTC)

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        values = await asyncio.to_thread(self._label_values, label, window)
        if self._journal is not None:
            values |= set(await self._journal.label_values(label=label, window=window, limit=limit))
        return sorted(values)[:limit]

    async def query_range(self, query: LogQuery) -> list[LogLine]:
        if query.native is not None:
            raise SourceError(
                "log files take no native query (service, level and contains only)",
                status=EvidenceStatus.REJECTED,
            )
        if query.window.end < query.window.start:
            raise SourceError("the window ends before it starts", status=EvidenceStatus.REJECTED)
        lines = await asyncio.to_thread(self._query, query)
        if self._journal is not None:
            lines += await self._journal.query_range(query)
        lines.sort(key=lambda line: line.ts, reverse=not query.oldest_first)
        return lines[: query.limit]

    def _streams(self, identity: str | None) -> list[_Stream]:
        streams = [
            _Stream(name, files)
            for name, patterns in self._globs.items()
            if identity is None or name == identity
            for pattern in patterns
            for files in chains(os.path.expanduser(pattern))
        ]
        return streams[:_MAX_CHAINS]

    def _budgets(self, streams: Sequence[_Stream]) -> Iterator[tuple[_Stream, Budget]]:
        share = self._scan_bytes // max(1, len(streams))
        return ((stream, Budget(share)) for stream in streams)

    def _query(self, query: LogQuery) -> list[LogLine]:
        selected: list[LogLine] = []
        for stream, budget in self._budgets(self._streams(query.service)):
            kept = (line for line in _read_stream(stream, query.window, budget) if query.keeps(line))
            # Each stream is read newest first: its first `limit` lines are all it can contribute,
            # or, oldest first, its last `limit` within the read budget.
            picked = deque(kept, maxlen=query.limit) if query.oldest_first else islice(kept, query.limit)
            selected.extend(picked)
        return selected

    def _label_values(self, label: str, window: TimeWindow) -> set[str]:
        values: set[str] = set()
        for stream, budget in self._budgets(self._streams(None)):
            for line in _read_stream(stream, window, budget):
                if label in line.labels:
                    values.add(line.labels[label])
                if label == "service":
                    break  # one line in the window names the stream
        return values
