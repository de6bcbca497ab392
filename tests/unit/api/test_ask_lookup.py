"""`superbiz ask` prints a lookup as Markdown: the summary, the query and the rows as a table."""

from __future__ import annotations

from api.ask import plain_answer


def test_a_lookup_prints_its_query_and_rows_with_pipes_escaped() -> None:
    content = {
        "content_type": "lookup_result",
        "payload": {
            "summary": "2 log lines",
            "nothing_matched": False,
            "degraded": False,
            "evidence": [],
            "tables": [
                {
                    "kind": "log_lines",
                    "title": "2 log lines",
                    "query": "query_logs(level=error, service=api)",
                    "evidence_ids": ["logs-1"],
                    "columns": ["time", "message"],
                    "rows": [["10:02", "a | b"], ["10:01", "line\nbreak"]],
                    "total": 2,
                    "truncated": False,
                },
                {
                    "kind": "alerts",
                    "title": "0 alerts",
                    "query": "list_alerts()",
                    "columns": ["alert"],
                    "rows": [],
                },
            ],
        },
    }
    assert plain_answer(content).splitlines() == [
        "2 log lines",
        "",
        "**2 log lines** — `query_logs(level=error, service=api)`",
        "",
        "| time | message |",
        "|---|---|",
        "| 10:02 | a \\| b |",
        "| 10:01 | line break |",
        "",
        "**0 alerts** — `list_alerts()`",
        "",
        "Nothing matched.",
    ]
