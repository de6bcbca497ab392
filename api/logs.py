"""Structured JSON logs carrying the session and run ids, secrets redacted as each record is made."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from tools.redaction import redact

# At DEBUG these print what they send: aiosqlite every statement with its parameters (answers,
# questions; SQLAlchemy's own engines hide theirs), httpcore and openai the model's request bodies.
# Parameters name none of their values, so masking the text cannot catch them: they stay quiet.
QUIET_AT_DEBUG = ("aiosqlite", "httpcore", "openai")

current_session: ContextVar[str | None] = ContextVar("current_session", default=None)
current_run: ContextVar[str | None] = ContextVar("current_run", default=None)


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


class RedactingFilter(logging.Filter):
    """Renders a record's message with its arguments, masks secrets in it and in its traceback, and
    leaves no arguments behind: a handler that formats the record again sees only the masked text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a malformed call: logging reports it when the record is emitted
            return True
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            # Standard formatters print `exc_text` when it is set instead of formatting the exception.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True


class _RedactingRecordFactory:
    """Applies `RedactingFilter` to every record where it is made, so every handler (stderr, pytest's
    caplog, a library's own) receives it masked; a handler filter would cover only its own handler."""

    def __init__(self, base: Callable[..., logging.LogRecord]) -> None:
        self.base = base
        self._filter = RedactingFilter()

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.base(*args, **kwargs)
        self._filter.filter(record)
        return record


def install_log_redaction() -> None:
    """Mask secrets in every log record from now on (once per process, however often it is called)."""
    factory = logging.getLogRecordFactory()
    if not isinstance(factory, _RedactingRecordFactory):
        logging.setLogRecordFactory(_RedactingRecordFactory(factory))


def configure_logging(level: str) -> None:
    """Route every log record, secrets masked, through the JSON formatter on stderr."""
    install_log_redaction()
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # drain3 announces "Starting Drain3 template miner" at INFO for every log query of every run.
    for noisy in ("uvicorn.access", "httpx", "alembic.runtime.plugins", "drain3", *QUIET_AT_DEBUG):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
