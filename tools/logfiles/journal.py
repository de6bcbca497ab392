"""The systemd journal through `journalctl --output=json`: units are identities (`nginx.service` is
`nginx`), PRIORITY is the level. The local journal, or a journal file or directory (`--file`,
`--directory`), e.g. one copied from another host or written by systemd-journal-remote.

journalctl reads newest first (`--reverse`) within the window and stops at the limit; a `contains`
filter is applied here, over at most `scan_entries` entries, so no pattern-matching build is needed.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tools.base import LogLine, LogQuery, SourceError, SourceHealth, TimeWindow
from tools.logfiles.formats import PRIORITY_LEVELS

JOURNALCTL = "journalctl"
DEFAULT_SCAN_ENTRIES = 20_000
_MAX_LINE_BYTES = 1024 * 1024
_TIMEOUT_S = 20.0
# Each level asked for as a PRIORITY range (journalctl -p FROM..TO).
_PRIORITIES = {
    "debug": "7..7",
    "info": "5..6",
    "warn": "4..4",
    "warning": "4..4",
    "error": "0..3",  # error or worse, as every source reads it
    "fatal": "0..2",
    "critical": "0..2",
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def available() -> bool:
    return shutil.which(JOURNALCTL) is not None


def _identity(entry: dict[str, object]) -> str | None:
    unit = entry.get("_SYSTEMD_UNIT")
    if isinstance(unit, str) and unit:
        return unit.removesuffix(".service")
    ident = entry.get("SYSLOG_IDENTIFIER") or entry.get("_COMM")
    return ident if isinstance(ident, str) and ident else None


def _text(value: object) -> str:
    if isinstance(value, list):  # journalctl writes a non-UTF-8 field as its bytes
        return bytes(int(byte) & 0xFF for byte in value).decode("utf-8", errors="replace")
    return "" if value is None else str(value)


def to_line(entry: dict[str, object]) -> LogLine | None:
    """One journal entry as a log line labelled service, level and host."""
    identity = _identity(entry)
    stamp = entry.get("__REALTIME_TIMESTAMP")
    if identity is None or not isinstance(stamp, str) or not stamp.isdigit():
        return None
    priority = _text(entry.get("PRIORITY"))
    labels = {
        "service": identity,
        "level": PRIORITY_LEVELS[int(priority)] if priority.isdigit() and int(priority) < 8 else "info",
    }
    if host := _text(entry.get("_HOSTNAME")):
        labels["host"] = host
    return LogLine(ts=_EPOCH + timedelta(microseconds=int(stamp)), labels=labels,
                   message=_text(entry.get("MESSAGE")))  # fmt: skip


def _since_until(window: TimeWindow) -> list[str]:
    return [f"--since=@{window.start.timestamp():.6f}", f"--until=@{window.end.timestamp():.6f}"]


class Journal:
    """journalctl as a reader; `path` a journal file (`--file`) or directory (`--directory`)."""

    def __init__(self, path: Path | None = None, *, scan_entries: int = DEFAULT_SCAN_ENTRIES) -> None:
        self._path = path
        self._scan_entries = scan_entries

    def _base(self) -> list[str]:
        command = [JOURNALCTL, "--output=json", "--no-pager", "--quiet"]
        if self._path is not None:
            command.append(f"--directory={self._path}" if self._path.is_dir() else f"--file={self._path}")
        return command

    async def health(self) -> SourceHealth:
        if not available():
            return SourceHealth(ok=False, reason="journalctl is not installed")
        try:
            async with aclosing(self._entries(["--reverse", "-n", "1"])) as entries:
                async for _ in entries:
                    break
        except SourceError as error:
            return SourceHealth(ok=False, reason=error.public)
        return SourceHealth(ok=True)

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        values: set[str] = set()
        arguments = ["--reverse", "-n", str(self._scan_entries), *_since_until(window)]
        async with aclosing(self._entries(arguments)) as entries:
            async for entry in entries:
                line = to_line(entry)
                if line is not None and label in line.labels:
                    values.add(line.labels[label])
        return sorted(values)[:limit]

    async def query_range(self, query: LogQuery) -> list[LogLine]:
        # Oldest first is journalctl's own order from `--since`; `-n` would keep the newest entries.
        since = _since_until(query.window)
        arguments = [*since] if query.oldest_first else ["--reverse", *since]
        # Filters journalctl cannot apply (text, other labels) are applied here, over a wider scan.
        if not query.oldest_first:
            filtered = query.contains or query.labels or query.status_class or query.other_than
            arguments += ["-n", str(self._scan_entries if filtered else query.limit)]
        if query.level is not None:
            arguments += ["-p", _PRIORITIES[query.level]]
        if query.service is not None:
            unit = query.service if "." in query.service else f"{query.service}.service"
            arguments.append(f"_SYSTEMD_UNIT={unit}")
        lines: list[LogLine] = []
        scanned = 0
        async with aclosing(self._entries(arguments)) as entries:
            async for entry in entries:
                line = to_line(entry)
                if line is not None and query.keeps(line):
                    lines.append(line)
                    if len(lines) >= query.limit:
                        break
                scanned += 1
                if scanned >= self._scan_entries:
                    break  # as `-n` bounds the newest-first scan
        return lines

    async def _entries(self, arguments: Sequence[str]) -> AsyncGenerator[dict[str, object], None]:
        try:
            process = await asyncio.create_subprocess_exec(
                *self._base(), *arguments,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=_MAX_LINE_BYTES,
            )  # fmt: skip
        except OSError as error:
            raise SourceError("journalctl could not be started") from error
        assert process.stdout is not None and process.stderr is not None
        try:
            async with asyncio.timeout(_TIMEOUT_S):
                while raw := await process.stdout.readline():
                    entry = json.loads(raw)
                    if isinstance(entry, dict):
                        yield entry
                said = await process.stderr.read(2_000)
                if await process.wait() != 0:
                    reason = said.decode(errors="replace").strip().splitlines()[-1:] or ["no reason"]
                    raise SourceError(f"journalctl failed: {reason[0][:200]}")
        except (TimeoutError, ValueError) as error:
            raise SourceError("journalctl gave no readable answer in time") from error
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
