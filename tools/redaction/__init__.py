"""Secrets in text (tool output, summaries, logs) masked before they reach a model, a trace or a client.

`families.py` holds what is masked; this module decides where to look, which is what keeps it cheap.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from tools.redaction.columns import masked_rows, sensitive_name
from tools.redaction.families import REDACTED, SECRETS, Secret

__all__ = [
    "REDACTED",
    "SECRETS",
    "CleanTexts",
    "Secret",
    "masked_rows",
    "redact",
    "redact_data",
    "sensitive_name",
]

# Letters that `(?i)` matches as ASCII but `str.lower` does not turn into it (long s, dotless and dotted
# i, Kelvin sign): without this, "pa\u017fsword=..." would miss its pattern's words and skip it. With
# them folded, `lowered` has the same length as the text (only U+0130 lowers to two characters).
_ASCII_UNDER_IGNORECASE = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i", "\u212a": "k"})


def redact(text: str) -> str:
    """Mask credentials, tokens, passwords, private keys and password hashes. Replacements never
    contain a backslash and never split an escape, so redacting JSON text keeps it valid JSON.

    Tool results reach here whole (64 KB of log lines on the event loop): a pattern is tried only
    where one of its starting literals occurs (found by substring search, far cheaper than letting
    the regex engine try every position), and families whose literals are absent cost one search each.
    """
    lowered = _lowered(text)
    for secret in SECRETS:
        if not all(word in lowered for word in secret.needs):
            continue
        masked = _masked(secret, text, lowered)
        if masked is not text:
            text, lowered = masked, _lowered(masked)
    return text


class CleanTexts:
    """`redact` for texts that recur from run to run (a trace's step and tool summaries): a text
    found clean is remembered, so its next copy costs one lookup. A text that held a secret is never
    kept; the set is bounded (emptied when full) and so are the texts it keeps."""

    def __init__(self, size: int = 1_024, max_chars: int = 1_000) -> None:
        self._size = size
        self._max_chars = max_chars
        self._clean: set[str] = set()

    def redact(self, text: str) -> str:
        if text in self._clean:
            return text
        masked = redact(text)
        if masked is text and len(text) <= self._max_chars:
            if len(self._clean) >= self._size:
                self._clean.clear()
            self._clean.add(text)
        return masked


def redact_data(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with secrets masked in every string, keys included: `data` itself when nothing was
    masked, else a plain JSON copy (values beyond JSON become their text)."""
    try:
        text = orjson.dumps(data, default=str).decode()
        loads: Any = orjson.loads
    except TypeError:  # beyond orjson (integers over 64 bits, non-string keys)
        text, loads = json.dumps(data, ensure_ascii=False, default=str), json.loads
    masked = redact(text)
    return data if masked == text else dict(loads(masked))


_FOLDED = tuple(chr(code) for code in _ASCII_UNDER_IGNORECASE)


def _lowered(text: str) -> str:
    # Translating maps every character through a dict (~0.5 ms for a 40 KB report with one "…" in
    # it): only text that holds one of the four letters is translated; the checks are plain searches.
    if text.isascii() or not any(letter in text for letter in _FOLDED):
        return text.lower()
    return text.translate(_ASCII_UNDER_IGNORECASE).lower()


def _masked(secret: Secret, text: str, lowered: str) -> str:
    """`secret.pattern.sub(secret.replacement, text)`, trying only where a match can start; `text`
    itself (the same object) when nothing matched."""
    starts = _occurrences(lowered, secret.starts)
    if not starts:
        return text
    pieces: list[str] = []
    done = 0
    for start in starts:
        if start < done:
            continue
        match = secret.pattern.match(text, start)
        if match is None:
            continue
        pieces.append(text[done:start])
        replacement = secret.replacement
        pieces.append(match.expand(replacement) if isinstance(replacement, str) else replacement(match))
        done = match.end()
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def _occurrences(lowered: str, words: tuple[str, ...]) -> list[int]:
    found: set[int] = set()
    for word in words:
        at = lowered.find(word)
        while at >= 0:
            found.add(at)
            at = lowered.find(word, at + 1)
    return sorted(found)
