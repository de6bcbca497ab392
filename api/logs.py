"""Structured JSON logs carrying the session and run ids, with secrets redacted before they are written."""

from __future__ import annotations

import json
import logging
import re
from contextvars import ContextVar
from datetime import UTC, datetime

current_session: ContextVar[str | None] = ContextVar("current_session", default=None)
current_run: ContextVar[str | None] = ContextVar("current_run", default=None)

_SECRETS = [
    (re.compile(r"(?i)\b(password|passwd|pwd|secret|token|api[_-]?key)\s*[=:]\s*\S+"), r"\1=[REDACTED]"),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+"), "Bearer [REDACTED]"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), "sk-[REDACTED]"),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "AKIA[REDACTED]"),
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/\s@]+):[^@\s/]+@"), r"\1:[REDACTED]@"),
]


def redact(text: str) -> str:
    """Mask credentials, tokens and passwords in connection strings."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, ids, and a redacted exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
            "session_id": current_session.get(),
            "run_id": current_run.get(),
        }
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info))
        return json.dumps({k: v for k, v in entry.items() if v is not None}, ensure_ascii=False)


def configure_logging(level: str) -> None:
    """Route every log record through the JSON formatter on stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("uvicorn.access", "httpx", "alembic.runtime.plugins"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
