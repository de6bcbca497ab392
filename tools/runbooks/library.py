"""Runbooks as a knowledge source: Markdown files chunked by heading and ranked with BM25.

One class serves the bundled demo runbooks and a configured directory alike.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path

from rank_bm25 import BM25Okapi

from tools.base import Passage, SourceHealth

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_TOKEN = re.compile(r"[a-z0-9]+(?:[_\-.][a-z0-9]+)*")
_MAX_FILE_BYTES = 1_000_000
_MAX_FILES = 2_000


@dataclass(frozen=True, slots=True)
class Section:
    """One heading of one runbook, with the text under it (up to the next heading)."""

    file: str
    heading: str
    text: str


def tokens(text: str) -> list[str]:
    """Lower-case words; dotted and dashed names stay whole and also count by their parts."""
    words: list[str] = []
    for word in _TOKEN.findall(text.lower()):
        words.append(word)
        parts = re.split(r"[_\-.]", word)
        if len(parts) > 1:
            words.extend(parts)
    return words


def split_sections(file: str, markdown: str) -> list[Section]:
    """Chunk Markdown by headings (outside code fences); text before any heading uses the file."""
    sections: list[Section] = []
    heading, fenced = file, False
    lines: list[str] = []
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match:
            sections.append(Section(file, heading, "\n".join(lines).strip()))
            heading, lines = match.group(2), []
        else:
            lines.append(line)
    sections.append(Section(file, heading, "\n".join(lines).strip()))
    return [s for s in sections if s.text or s.heading != file]


class RunbookLibrary:
    """KnowledgeSource over every `*.md` under `directory` (read once, at construction)."""

    def __init__(self, directory: Path, *, max_passage_chars: int = 1_500) -> None:
        self._directory = directory
        self._max_chars = max_passage_chars
        self._sections = _read(directory)
        corpus = [tokens(f"{s.heading} {s.heading} {s.text}") for s in self._sections]
        self._vocabularies = [set(words) for words in corpus]
        self._bm25 = BM25Okapi(corpus) if corpus else None

    async def health(self) -> SourceHealth:
        if not self._sections:
            return SourceHealth(ok=False, reason="no runbooks found")
        return SourceHealth(ok=True)

    async def index(self, *, limit: int) -> list[tuple[str, str]]:
        return [(s.file, s.heading) for s in self._sections[:limit]]

    async def search(self, *, query: str, limit: int) -> list[Passage]:
        return await asyncio.to_thread(self._search, query, limit)

    def _search(self, query: str, limit: int) -> list[Passage]:
        words = tokens(query)
        if self._bm25 is None or not words:
            return []
        scores = self._bm25.get_scores(words)
        # Okapi IDF can go negative in a tiny library: relevance is "shares a word", order is BM25.
        matching = [i for i, vocabulary in enumerate(self._vocabularies) if vocabulary & set(words)]
        ranked = sorted(matching, key=lambda i: (-scores[i], i))
        return [
            Passage(
                file=self._sections[i].file,
                heading=self._sections[i].heading,
                text=_clip(self._sections[i].text, self._max_chars),
                score=float(scores[i]),
            )
            for i in ranked[:limit]
        ]


def _read(directory: Path) -> list[Section]:
    if not directory.is_dir():
        return []
    sections: list[Section] = []
    for path in sorted(directory.rglob("*.md"))[:_MAX_FILES]:
        if not path.is_file() or path.stat().st_size > _MAX_FILE_BYTES:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        sections.extend(split_sections(path.relative_to(directory).as_posix(), text))
    return sections


def _clip(text: str, max_chars: int) -> str:
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"
