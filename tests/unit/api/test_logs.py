"""Secrets never reach a log line."""

from __future__ import annotations

import json
import logging

from api.logs import JsonFormatter, current_run
from tools.redaction import redact


def test_redact_masks_passwords_tokens_keys_and_connection_strings() -> None:
    text = redact(
        "password=hunter2 api_key: abc123 Bearer eyJhbGciOi.x.y sk-proj-ABCDEFGHIJKL "
        "AKIAABCDEFGHIJKLMNOP postgresql://svc:s3cr3t@db:5432/x"
    )
    for secret in ("hunter2", "abc123", "eyJhbGciOi", "ABCDEFGHIJKL", "AKIAABCDEFGHIJKLMNOP", "s3cr3t"):
        assert secret not in text
    assert "postgresql://svc:[REDACTED]@db:5432/x" in text


def test_json_log_line_carries_run_id_and_no_secret() -> None:
    token = current_run.set("run-42")
    try:
        record = logging.LogRecord("t", logging.ERROR, __file__, 1, "login password=%s", ("pw1",), None)
        line = json.loads(JsonFormatter().format(record))
    finally:
        current_run.reset(token)
    assert line["run_id"] == "run-42" and line["level"] == "ERROR"
    assert "pw1" not in line["message"]
