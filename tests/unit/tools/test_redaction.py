"""Secrets in tool output are masked, and masking JSON text keeps it valid JSON."""

from __future__ import annotations

import json

from tools.redaction import redact
from tools.toolbox.bounds import masked_and_bounded


def test_secrets_in_strings_are_masked_and_json_stays_valid() -> None:
    data = {
        "lines": [
            {"message": 'connect failed: password="hunter2" user=svc'},
            {"message": "dsn=postgresql://svc:s3cr3t@db.internal:5432/orders"},
            {"message": "auth header Bearer eyJhbGciOiJIUzI1NiJ9.abc.def"},
            {"message": "key sk-live-ABCDEFGHIJKLMNOP and AKIAABCDEFGHIJKLMNOP"},
            {"message": "plain line with no secret"},
        ]
    }
    masked, cut, _ = masked_and_bounded(data, 65_536, mask=redact)
    assert not cut
    text = json.dumps(masked)
    for secret in ("hunter2", "s3cr3t", "eyJhbGciOiJIUzI1NiJ9", "ABCDEFGHIJKLMNOP"):
        assert secret not in text
    assert masked["lines"][4]["message"] == "plain line with no secret"
    assert "postgresql://svc:[REDACTED]@db.internal:5432/orders" in text


def test_data_without_secrets_is_returned_unchanged() -> None:
    data = {"series": [{"metric": "up", "samples": [[1, 1.0]]}]}
    assert masked_and_bounded(data, 65_536, mask=redact)[0] == data
    assert redact("latency rose from 120 ms to 900 ms") == "latency rose from 120 ms to 900 ms"
