"""The LogQL subset (stream selector plus line filters), on plain strings."""

from __future__ import annotations

import pytest

from tests.support.logql import LogQueryError, parse_log_query

LEDGER = {"service": "ledger", "level": "error", "host": "ledger-2"}


@pytest.mark.parametrize(
    ("text", "labels", "line", "kept"),
    [
        ('{service="ledger"}', LEDGER, "anything", True),
        ('{service="relay"}', LEDGER, "anything", False),
        ('{service="ledger", level=~"error|warn"}', LEDGER, "x", True),
        ('{service=~".+", level!="error"}', LEDGER, "x", False),
        ('{service="ledger"} |= "timed out"', LEDGER, "write timed out after 3s", True),
        ('{service="ledger"} |= "timed out"', LEDGER, "write ok", False),
        ('{service="ledger"} != "ok"', LEDGER, "write ok", False),
        ('{service="ledger"} |~ "shard=[0-3]"', LEDGER, "write ok shard=2 more", True),  # searched
        ('{service="ledger"} !~ "shard=[0-3]"', LEDGER, "write ok shard=2", False),
        ('{service="ledger"} |= "write" != "ok" |~ "time"', LEDGER, "write timed out", True),
        ('{service="ledger"} |= "write" != "ok" |~ "time"', LEDGER, "write ok timed", False),
        ('{service="ledger"}|="a"', LEDGER, "abc", True),
        ('{service="ledger"} |= `C:\\path`', LEDGER, "at C:\\path now", True),
    ],
)
def test_query_keeps_the_lines_loki_would(text: str, labels: dict[str, str], line: str, kept: bool) -> None:
    assert parse_log_query(text).matches(labels, line) is kept


@pytest.mark.parametrize(
    "text",
    [
        "",
        'service="ledger"',
        "{}",
        '{service=~".*"}',
        '{service="ledger"',
        '{service="ledger"} |= ',
        '{service="ledger"} | json',
        '{service="ledger"} | logfmt | level="error"',
        'sum(rate({service="ledger"}[5m]))',
        'count_over_time({service="ledger"}[5m])',
        '{service="ledger"} |~ "("',
        '{service="ledger"} |= "a" extra',
    ],
)
def test_anything_beyond_the_subset_is_refused(text: str) -> None:
    with pytest.raises(LogQueryError):
        parse_log_query(text)
