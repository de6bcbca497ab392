"""Structured JSON logs carrying the session and run ids, secrets redacted before they are written."""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime

from tools.redaction import redact

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


def configure_logging(level: str) -> None:
    """Route every log record through the JSON formatter on stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # drain3 announces "Starting Drain3 template miner" at INFO for every log query of every run.
    for noisy in ("uvicorn.access", "httpx", "alembic.runtime.plugins", "drain3"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
