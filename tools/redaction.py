"""Secrets in text (tool output, summaries, logs) masked before they reach a model, a trace or a client."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class _Secret:
    """One kind of secret, and the lowercase words its pattern cannot match without."""

    pattern: re.Pattern[str]
    replacement: str
    any_of: tuple[str, ...]  # at least one of these
    all_of: tuple[str, ...] = ()  # and every one of these


SECRETS = (
    _Secret(
        re.compile(r"(?i)\b(password|passwd|pwd|secret|token|api[_-]?key)\s*[=:]\s*(\\?[\"'])?[^\s,;\"'\\]+"),
        r"\1=\2[REDACTED]",
        any_of=("passw", "pwd", "secret", "token", "api_key", "api-key", "apikey"),
    ),
    _Secret(re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+"), "Bearer [REDACTED]", any_of=("bearer",)),
    _Secret(re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), "sk-[REDACTED]", any_of=("sk-",)),
    _Secret(re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "AKIA[REDACTED]", any_of=("akia",)),
    # Credentials in a URL need its "@": log lines full of plain URLs skip this (slowest) pattern.
    _Secret(
        re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/\s@\"'\\]+):[^@\s/\"'\\]+@"),
        r"\1:[REDACTED]@",
        any_of=("://",),
        all_of=("@",),
    ),
)


# Letters that `(?i)` matches as ASCII but `str.lower` does not turn into it (long s, dotless and dotted
# i, Kelvin sign): without this, "pa\u017fsword=..." would miss its pattern's words and skip it.
_ASCII_UNDER_IGNORECASE = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i", "\u212a": "k"})


def redact(text: str) -> str:
    """Mask credentials, tokens and passwords in connection strings. Replacements never contain a
    quote or a backslash, so redacting JSON text keeps it valid JSON.

    Each pattern runs only where its words occur: tool results reach here whole (64 KB of log lines
    on the event loop), and running every pattern over a result that merely holds a URL cost 15 ms.
    """
    # ASCII text holds none of the letters to fold (a flag check, where translating reads every char).
    lowered = (text if text.isascii() else text.translate(_ASCII_UNDER_IGNORECASE)).lower()
    # Replacements add none of the words, so what `lowered` lacks, the partly redacted text lacks too.
    for secret in SECRETS:
        if any(word in lowered for word in secret.any_of) and all(word in lowered for word in secret.all_of):
            text = secret.pattern.sub(secret.replacement, text)
    return text
