"""Secrets in text (tool output, summaries, logs) masked before they reach a model, a trace or a client."""

from __future__ import annotations

import re

_SECRETS = [
    (
        re.compile(r"(?i)\b(password|passwd|pwd|secret|token|api[_-]?key)\s*[=:]\s*(\\?[\"'])?[^\s,;\"'\\]+"),
        r"\1=\2[REDACTED]",
    ),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+"), "Bearer [REDACTED]"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), "sk-[REDACTED]"),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "AKIA[REDACTED]"),
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/\s@\"'\\]+):[^@\s/\"'\\]+@"), r"\1:[REDACTED]@"),
]


# Every pattern above needs one of these (case-insensitively): a cheap test before the regexes.
_TRIGGERS = (
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "api-key",
    "apikey",
    "bearer",
    "sk-",
    "akia",
    "://",
)


def redact(text: str) -> str:
    """Mask credentials, tokens and passwords in connection strings. Replacements never contain a
    quote or a backslash, so redacting JSON text keeps it valid JSON."""
    lowered = text.lower()
    if not any(trigger in lowered for trigger in _TRIGGERS):
        return text
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text
