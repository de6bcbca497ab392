"""Reading log files from their end: the lines of one file newest first, in blocks, within a byte budget,
and the rotations of a log file (`x.log`, `x.log.1`, `x.log.2.gz`, `x.log-20261201`) newest first.

A plain file is read backwards by seeking, so a query over the last minutes of a 10 GB log reads only
those minutes. A gzip member cannot be read backwards: it is inflated forward, keeping only the last
`budget` bytes, and one larger than `MAX_INFLATED_BYTES` is not read at all (it is an old rotation).
"""

from __future__ import annotations

import glob
import gzip
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BLOCK_BYTES = 64 * 1024
MAX_INFLATED_BYTES = 256 * 1024 * 1024
_ROTATION = re.compile(r"(?:\.(\d+)|-(\d{8,10}))(?:\.gz)?")


@dataclass
class Budget:
    """Bytes a query may still read; shared by every file of one chain."""

    left: int

    def take(self, wanted: int) -> int:
        granted = max(0, min(wanted, self.left))
        self.left -= granted
        return granted


def _rotation_key(base: Path, rotated: Path) -> tuple[int, str]:
    match = _ROTATION.fullmatch(rotated.name[len(base.name) :])
    assert match is not None
    if match[1] is not None:
        return (int(match[1]), "")
    # Dated rotations sort newest (largest date) first, after any numbered one.
    return (1 << 30, "".join(chr(0x7F - ord(char)) for char in match[2]))


def rotation_chain(base: Path) -> list[Path]:
    """`base` and its rotated files, newest first."""
    rotated = [
        path
        for path in base.parent.glob(glob.escape(base.name) + "[.-]*")
        if _ROTATION.fullmatch(path.name[len(base.name) :]) and path.is_file()
    ]
    return [base, *sorted(rotated, key=lambda path: _rotation_key(base, path))]


def chains(pattern: str) -> list[list[Path]]:
    """The files a glob names, each with its rotations; a file that is itself a rotation of another
    match joins that file's chain rather than being read twice."""
    matched = sorted(Path(name) for name in glob.glob(pattern) if Path(name).is_file())
    names = {path.name for path in matched}
    bases = [
        path
        for path in matched
        if not any(
            path.name.startswith(name) and _ROTATION.fullmatch(path.name[len(name) :]) for name in names
        )
    ]
    return [rotation_chain(base) for base in bases]


class BackwardLines:
    """The lines of one file, newest first, as text; `reached_start` tells whether the iteration got
    to the file's first line (False when the budget ran out first, leaving the oldest line cut)."""

    def __init__(self, path: Path, budget: Budget) -> None:
        self.path = path
        self.budget = budget
        self.reached_start = False

    def __iter__(self) -> Iterator[str]:
        blocks = self._inflated() if self.path.name.endswith(".gz") else self._seeking()
        for raw in blocks:
            if raw.strip():
                yield raw.decode("utf-8", errors="replace").rstrip("\r")

    def _seeking(self) -> Iterator[bytes]:
        with self.path.open("rb") as handle:
            position = handle.seek(0, 2)
            tail = b""
            while position > 0:
                size = self.budget.take(min(BLOCK_BYTES, position))
                if size == 0:
                    return  # the budget ends mid-line: the cut line is not an entry
                position -= size
                handle.seek(position)
                parts = (handle.read(size) + tail).split(b"\n")
                tail = parts[0]
                yield from reversed(parts[1:])
            self.reached_start = True
            yield tail

    def _inflated(self) -> Iterator[bytes]:
        kept = bytearray()
        inflated = 0
        cut = False
        try:
            with gzip.open(self.path, "rb") as handle:
                while chunk := handle.read(BLOCK_BYTES):
                    inflated += len(chunk)
                    if inflated > MAX_INFLATED_BYTES:
                        return
                    kept += chunk
                    if len(kept) > self.budget.left:
                        del kept[: len(kept) - self.budget.left]
                        cut = True
        except (OSError, EOFError, zlib.error):
            return  # a rotation still being compressed, or a damaged one: not evidence
        self.budget.take(len(kept))
        parts = bytes(kept).split(b"\n")
        if cut:
            parts = parts[1:]  # its first line lost its beginning
        else:
            self.reached_start = True
        yield from reversed(parts)
