"""Secrets never reach a log line; chatty libraries stay quiet at INFO."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest

from api.logs import JsonFormatter, configure_logging, current_run
from tools.digest.limits import DigestLimits
from tools.digest.logs import patterns_from
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


def test_info_logging_keeps_the_per_run_drain3_announcement_out(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level, logging.getLogger("drain3").level
    try:
        configure_logging("INFO")
        lines = {"lines": [{"ts": "2026-11-30T10:00:00Z", "message": "payment timeout", "level": "ERROR"}]}
        patterns_from("ev-1", lines, now=datetime(2026, 11, 30, 11, tzinfo=UTC), limits=DigestLimits())
        logging.getLogger("superbiz").info("kept")
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        logging.getLogger("drain3").setLevel(saved[2])
    logged = capsys.readouterr().err.splitlines()
    assert [json.loads(line)["message"] for line in logged] == ["kept"]
