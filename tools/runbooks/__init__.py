"""Runbooks: Markdown chunked by heading, ranked with BM25 (`RunbookLibrary`)."""

from tools.runbooks.library import RunbookLibrary

__all__ = ["RunbookLibrary"]
