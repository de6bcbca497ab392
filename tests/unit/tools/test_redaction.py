"""Secrets in tool output are masked, and masking JSON text keeps it valid JSON."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tools.redaction import SECRETS, redact
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


def _every_pattern(text: str) -> str:
    for secret in SECRETS:
        text = secret.pattern.sub(secret.replacement, text)
    return text


# Pieces of secrets, their separators and near misses, in both cases.
_PIECES = [
    *("password", "PassWD", "pwd", "Secret", "token", "api_key", "API-Key", "apikey", "api key"),
    *("bearer ", "Bearer\t", "sk-", "SK-", "AKIA", "akia", "://", "postgresql", "@", ":", "="),
    *(" ", "\n", '"', "'", "\\", "/", ",", ";", "x", "Z9", "ABCDEFGHIJKLMNOP", "abc123", "é"),
    # Letters that `(?i)` folds to ASCII, and single letters to spell words with them.
    *("\u017f", "\u0131", "\u0130", "\u212a"),
    *("s", "i", "a", "p", "e", "c", "r", "t", "k", "y", "o", "w", "d"),
]


@settings(max_examples=1_000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_running_only_the_patterns_whose_words_occur_masks_exactly_what_every_pattern_would(
    text: str,
) -> None:
    assert redact(text) == _every_pattern(text)


def test_log_lines_with_urls_but_no_credentials_are_unchanged() -> None:
    line = "GET /api/cart 200 upstream http://cart:8080/v1 took 12 ms"
    assert redact(line) == line
    assert (
        redact(line + " via https://svc:hunter2@proxy:3128")
        == line + " via https://svc:[REDACTED]@proxy:3128"
    )


def test_secrets_spelled_with_letters_that_ignorecase_folds_are_masked_beside_other_secrets() -> None:
    long_s, dotless_i, dotted_i = "\u017f", "\u0131", "\u0130"
    for spelled in (f"pa{long_s}sword", f"{long_s}ecret", f"ap{dotless_i}key", f"ap{dotted_i}key"):
        assert "hunter2" not in redact(f"{spelled}=hunter2 at https://x/ Bearer abc")
