"""Secrets never reach a log line; chatty libraries stay quiet at INFO."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from api.logs import QUIET_AT_DEBUG, JsonFormatter, RedactingFilter, configure_logging, current_run
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
    factory = logging.getLogRecordFactory()
    try:
        configure_logging("INFO")
        lines = {"lines": [{"ts": "2026-11-30T10:00:00Z", "message": "payment timeout", "level": "ERROR"}]}
        patterns_from("ev-1", lines, now=datetime(2026, 11, 30, 11, tzinfo=UTC), limits=DigestLimits())
        logging.getLogger("superbiz").info("kept")
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        logging.getLogger("drain3").setLevel(saved[2])
        logging.setLogRecordFactory(factory)
    logged = capsys.readouterr().err.splitlines()
    assert [json.loads(line)["message"] for line in logged] == ["kept"]


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def configured_logging() -> Iterator[list[logging.LogRecord]]:
    """`configure_logging("DEBUG")` undone afterwards; yields what a second, plain handler receives."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level, logging.getLogRecordFactory()
    levels = {name: logging.getLogger(name).level for name in QUIET_AT_DEBUG}
    collector = _Collector()
    received = collector.records
    try:
        configure_logging("DEBUG")
        configure_logging("DEBUG")  # twice: records are still masked once, not wrapped twice
        root.addHandler(collector)
        yield received
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        logging.setLogRecordFactory(saved[2])
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def test_every_handler_receives_records_with_message_args_and_traceback_masked(
    configured_logging: list[logging.LogRecord],
) -> None:
    payload = '{"user": "svc", "password": "Hunter 2 Zq9"}'
    try:
        raise ValueError("connect postgresql://svc:Zq9dsn@db/x failed")
    except ValueError:
        logging.getLogger("superbiz.test").exception("login rejected %s for %s", payload, "svc")
    (record,) = [r for r in configured_logging if r.name == "superbiz.test"]
    assert record.args is None and "Zq9" not in record.getMessage()
    assert record.getMessage() == 'login rejected {"user": "svc", "password": "[REDACTED]"} for svc'
    formatted = logging.Formatter().format(record)
    assert "Traceback" in formatted and "Zq9" not in formatted
    assert "postgresql://svc:[REDACTED]@db/x" in formatted


def test_libraries_that_print_parameters_or_request_bodies_stay_quiet_at_debug(
    configured_logging: list[logging.LogRecord],
) -> None:
    assert logging.getLogger().level == logging.DEBUG
    for name in QUIET_AT_DEBUG:
        assert not logging.getLogger(name).isEnabledFor(logging.DEBUG)
    logging.getLogger("aiosqlite").debug("executing %r", ("INSERT ...", ("Zq9 row value",)))
    assert not [r for r in configured_logging if r.name == "aiosqlite"]


def test_a_malformed_log_call_is_left_for_logging_to_report(
    configured_logging: list[logging.LogRecord],
) -> None:
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "two %s %s", ("one",), None)
    assert RedactingFilter().filter(record) and record.args == ("one",)
