"""Secrets in tool output are masked, and masking JSON text keeps it valid JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.redaction import REDACTED, SECRETS, CleanTexts, redact
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
    *(
        "auth",
        "Authorization: ",
        "Basic ",
        " is ",
        "tokens",
        "author",
        "ghp_",
        "xoxb-",
        "eyJ",
        "eyJhbGciOi.",
        "$",
    ),
    *(
        "-----BEGIN PRIVATE KEY-----",
        "-----END PRIVATE KEY-----",
        "SCRAM-SHA-256$",
        "md5",
        "*",
        "0123456789abcdef",
    ),
    *("{", "}", "[", "]", "&", "null", "1234", ":=", "=>", '\\"', "\t", "\r"),
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


@settings(max_examples=1_000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_redacting_twice_changes_nothing_more(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


_JSON_TEXT = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _JSON_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_JSON_TEXT, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=1_000, deadline=None)
@given(_JSON, st.booleans())
def test_redacted_json_stays_json_at_every_level_of_nesting(value: object, spaced: bool) -> None:
    separators = (", ", ": ") if spaced else (",", ":")
    text = json.dumps({"data": value}, separators=separators)
    json.loads(redact(text))
    nested = json.dumps({"line": text}, separators=separators)
    json.loads(json.loads(redact(nested))["line"])  # the inner JSON survives too
    json.loads(redact(json.dumps({"line": nested}, ensure_ascii=False)))


# The reproductions, verbatim or as close as text allows: none of the secret stays.
REPRODUCTIONS = [
    ("DB_PASSWORD=Sup3rS3cret!", "Sup3rS3cret!"),
    ("env SUPERBIZ_API_TOKENS=tok-alice-1,tok-bob-2", "tok-alice-1"),
    ("PGPASSWORD=pg-pass-77 psql -h db", "pg-pass-77"),
    ("GET /cb?code=1&access_token=at.9f8e7d6c&state=2", "at.9f8e7d6c"),
    ("client_secret=cs_live_4b3a2", "cs_live_4b3a2"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("secret_key=django-insecure-x1y2", "django-insecure-x1y2"),
    ('payload {"password": "Tr0ub4dor&3"} rejected', "Tr0ub4dor&3"),
    ('{"password" : "with spaces and \\"quotes\\" inside", "user": "bob"}', "spaces and"),
    ("the password is Hunter2 for now", "Hunter2"),
    ("Authorization: Basic YWRtaW46c2VjcmV0", "YWRtaW46c2VjcmV0"),
    ("redis://:redispw@cache:6379/0", "redispw"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7y\nq0p9o8i7u6\n-----END RSA PRIVATE KEY-----",
        "MIIEpAIB",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
        "b3Blbn",
    ),
    ("clone https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r", "16C7e42F292c"),
    ("SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIj"),
    ("token: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2lnbmF0dXJl", "eyJzdWIiOiJib2IifQ"),
    ("token: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2lnbmF0dXJl", "c2lnbmF0dXJl"),
    ("dsn postgresql://admin:p@ss@db:5432/app", "p@ss"),
    ("dsn postgresql://admin:p@ss@db:5432/app", "ss@db"[:2] + "@"),
    ('password="Hunter 2 is my pw" user=x', "Hunter 2"),
    ('password="Hunter 2 is my pw" user=x', "is my pw"),
    ("postgres | SCRAM-SHA-256$4096:c2FsdHNhbHRzYWx0$c3RvcmVka2V5:c2VydmVya2V5", "c2FsdHNhbHRzYWx0"),
    ("app | md5a3556571e93b0d20722ba62be61e8c2d", "a3556571e93b0d20"),
    ("root | *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19", "2470C0C06DEE"),
    ("hash $2b$12$KIXQJq8Zb7m0sQh8x6wS0eM9pZ3j6kq7cY0a1b2c3d4e5f6g7h8i9", "KIXQJq8Zb7m0"),
    ("hash $argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo", "aGFzaGhhc2g"),
    ("shadow $6$rounds=5000$saltsalt$Zq9hashhashhashhash", "Zq9hash"),
]


@pytest.mark.parametrize(("text", "secret"), REPRODUCTIONS)
def test_the_reported_misses_are_masked(text: str, secret: str) -> None:
    assert secret not in redact(text)
    assert secret not in json.loads(redact(json.dumps({"message": text})))["message"]


@pytest.mark.parametrize(
    "line",
    [
        "token bucket refilled: 40 tokens available",
        "password reset page visited by user 42",
        "password is incorrect for user bob",
        "token is expired, refreshing",
        "model tokens: 1532, max_tokens=2048, tokens_used = 12",
        '{"model_calls": 2, "tokens": 1532}',
        "Payment pay_b016ebdb authorized for order ord-43454 in 38ms",
        "authenticated via oauth2 in 12 ms",
        "author=alice committed 3 files",
        "Bearer token missing from the request",
        "GET /api/v1/cart 200 upstream http://cart:8080/v1 took 12 ms",
        "secret rotation finished",
        '{"kind": "token", "count": 3}',
        '{"message": "password:", "next": "x"}',
        "sum $12.50 for *bold* text and md5 checksum ok",
        "placeholders stay: password=*** and SUPERBIZ_MODEL__API_KEY=... in the docs",
        # A host named like a key, and its port: `job=node instance=authn-03:9100`, `auth-api:8080`.
        "job=node instance=authn-03:9100 up",
        "GET http://auth-api:8080/healthz 200",
        "scrape of tokenizer-2:9187 failed",
        # A system named after what it does, and what an answer says about it.
        "Firing alerts on auth-gateway: AuthGatewayHigh401Rate (critical)",
        "authsvc-api: change at 14:05",
    ],
)
def test_ordinary_log_text_is_left_alone(line: str) -> None:
    assert redact(line) == line
    assert redact(json.dumps({"m": line})) == json.dumps({"m": line})


@pytest.mark.parametrize(
    "line",
    ["auth-token: Zq9x81", "x-auth-key=Zq9x81", "AUTH-SESSION-ID: Zq9x81", "auth-v2=Zq9x81", "auth: Zq9x81"],
)
def test_an_auth_key_whose_name_says_it_holds_a_secret_loses_its_value(line: str) -> None:
    assert "Zq9x81" not in redact(line)


def test_clean_texts_remember_only_clean_texts_and_stay_bounded() -> None:
    texts = CleanTexts(size=2, max_chars=40)
    secret = "connect with password=hunter2hunter2"
    for _ in range(3):  # never remembered: masked on every call
        assert REDACTED in texts.redact(secret) and "hunter2" not in texts.redact(secret)
    assert texts.redact("3 log lines from 10:00") == "3 log lines from 10:00"
    assert texts._clean == {"3 log lines from 10:00"}
    texts.redact("a second clean text")
    texts.redact("a third clean text")  # full: emptied, then this one kept
    assert texts._clean == {"a third clean text"}
    texts.redact("x" * 41)  # longer than it keeps
    assert "x" * 41 not in texts._clean
