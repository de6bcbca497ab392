"""Secrets in text (tool output, summaries, logs) masked before they reach a model, a trace or a client."""

from __future__ import annotations

import json
import re
from typing import Any

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


def redact(text: str) -> str:
    """Mask credentials, tokens and passwords in connection strings. Replacements never contain a
    quote or a backslash, so redacting JSON text keeps it valid JSON."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


def redact_json(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with every secret in its strings masked (one pass over its JSON text)."""
    text = json.dumps(data, ensure_ascii=False)
    masked = redact(text)
    if masked == text:
        return data
    result: dict[str, Any] = json.loads(masked)
    return result
