"""SemanticGuard's part of a lookup: no released cell holds a secret or the model's instructions.

Pure, on the answer. The reason code of a rejection is internal, never streamed.
"""

from __future__ import annotations

from collections.abc import Iterable

from graph.analysts.lookup import LookupAnswer
from graph.nodes.semantic_guard.checks import (
    DESTRUCTIVE,
    INTERNAL_PATTERNS,
    PROMPT_PATTERNS,
    SECRET_PATTERNS,
    WARNING,
    SemanticVerdict,
)


def check_lookup_release(answer: LookupAnswer, prompt_lines: Iterable[str] = ()) -> SemanticVerdict:
    """Secrets and prompt text are refused anywhere; internal errors and unguarded destructive
    commands in the answer's own words. Rows are data, not advice: a log line quoting a DELETE or a
    stack frame is what was asked for."""
    lines = [line.lower() for line in prompt_lines if len(line) >= 40]
    cells = [cell for table in answer.tables for row in table.rows for cell in row]
    cells += [text for table in answer.tables for text in (table.title, table.query, *table.columns)]
    for text in [answer.summary, *cells]:
        for code, pattern in (*SECRET_PATTERNS, *PROMPT_PATTERNS):
            if pattern.search(text):
                return SemanticVerdict(False, code)
        if any(line in text.lower() for line in lines):
            return SemanticVerdict(False, "prompt:verbatim")
    for code, pattern in INTERNAL_PATTERNS:
        if pattern.search(answer.summary):
            return SemanticVerdict(False, code)
    if DESTRUCTIVE.search(answer.summary) and not WARNING.search(answer.summary):
        return SemanticVerdict(False, "destructive:unguarded_command")
    return SemanticVerdict(True)
