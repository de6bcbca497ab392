"""POST /api/chat with a data question: the lookup route releases the rows its query returned.

On the bundled demo world (the fixture backends): rows come back with their query and counts, an
empty result says "nothing matched", and a row no tool returned is refused by EvidenceGuard.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from graph.analysts.lookup import LookupAnswer
from graph.nodes.lookup.tables import lookup_answer
from tests.api.conftest import MakeClient
from tests.support.secret_world import SECRETS, build_secret_world
from tests.support.sse import events_of, only, post_stream


async def _ask(
    client: httpx.AsyncClient, query: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    frames = await post_stream(client, "/api/chat", {"query": query})
    assert events_of(frames)[-2:] == ["content", "done"]
    meta = only(frames, "metadata")
    trace = await client.get(f"/api/diagnosis/{meta['session_id']}/trace", params={"runId": meta["run_id"]})
    return only(frames, "content"), only(frames, "done"), trace.json()["data"]


async def test_error_lines_of_a_service_come_back_as_a_table_with_their_query(
    client: httpx.AsyncClient,
) -> None:
    content, done, trace = await _ask(client, "Show the last 5 error lines from payment")
    assert done == {"outcome": "SUCCESS"} and content["content_type"] == "lookup_result"
    payload = content["payload"]
    assert payload["nothing_matched"] is False and payload["degraded"] is False
    [table] = payload["tables"]
    assert table["kind"] == "log_lines" and table["columns"][-1] == "message"
    assert len(table["rows"]) == 5 and table["total"] == 5
    assert {row[1] for row in table["rows"]} == {"payment"}
    assert {row[2] for row in table["rows"]} == {"ERROR"}
    times = [row[0] for row in table["rows"]]
    assert times == sorted(times, reverse=True)  # newest first
    assert "service=payment" in table["query"] and "level=error" in table["query"]
    assert "limit=5" in table["query"]
    assert payload["summary"].startswith("5 log lines")
    # The stored run records the route, the answer and the lookup node on its path.
    assert trace["run"]["route"] == "lookup"
    assert trace["answer"] == content
    assert trace["run"]["orchestrationTrace"]["path"] == [
        "router",
        "planner",
        "executors",
        "planner",
        "lookup",
        "evidence_guard",
        "semantic_guard",
        "composer",
    ]
    assert trace["selfEvaluation"]["evidence_guard"]["passed"] is True


async def test_a_quoted_phrase_finds_the_lines_holding_it(client: httpx.AsyncClient) -> None:
    content, _, _ = await _ask(client, "find 'Connection is not available' in the payment logs")
    [table] = content["payload"]["tables"]
    assert table["rows"] and all("Connection is not available" in row[-1] for row in table["rows"])


async def test_firing_alerts_and_a_metric_value_are_tables_too(client: httpx.AsyncClient) -> None:
    alerts, _, _ = await _ask(client, "Which alerts are firing?")
    [table] = alerts["payload"]["tables"]
    assert table["kind"] == "alerts" and table["rows"]
    assert any(row[3].startswith("firing") for row in table["rows"])
    assert table["query"].startswith("list_alerts(")
    value, _, _ = await _ask(client, "Run this PromQL: sum by (service) (db_pool_connections_active)")
    [series] = value["payload"]["tables"]
    assert series["kind"] == "series" and series["columns"] == ["series", "value", "time"]
    assert any('service="payment"' in row[0] for row in series["rows"])


async def test_an_empty_result_says_nothing_matched(client: httpx.AsyncClient) -> None:
    content, done, _ = await _ask(client, "grep 'no such phrase anywhere' in the payment logs")
    assert done == {"outcome": "SUCCESS"}
    payload = content["payload"]
    assert payload["nothing_matched"] is True and payload["summary"].startswith(
        "Nothing matched: query_logs("
    )
    assert payload["tables"][0]["rows"] == []


async def test_a_row_no_tool_returned_is_refused_by_the_evidence_guard(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def with_invented_row(items: Any, about: Any = (), question: str = "") -> LookupAnswer:
        answer = lookup_answer(items, about, question)
        invented = ["2026-11-30T09:59:59Z", "payment", "ERROR", "", "disk /dev/sda1 is full"]
        answer.tables[0].rows.append(invented)
        answer.tables[0].total += 1
        return answer

    monkeypatch.setattr("graph.nodes.lookup.node.lookup_answer", with_invented_row)
    content, done, trace = await _ask(client, "Show the last 5 error lines from payment")
    assert done == {"outcome": "FALLBACK"}
    assert content["payload"]["degraded"] is True and "disk /dev/sda1" not in str(content)
    report = trace["selfEvaluation"]["evidence_guard"]
    assert report["passed"] is False and report["violations"] == ["table 1 row 6 is in no cited tool result"]


async def test_a_diagnosis_question_is_not_a_lookup(client: httpx.AsyncClient) -> None:
    content, _, trace = await _ask(client, "show me why checkout is slow")
    assert content["content_type"] == "diagnosis_report" and trace["run"]["route"] == "complex"


async def test_rows_are_released_masked_and_never_with_a_secret(
    make_client: MakeClient, tmp_path: Path
) -> None:
    world = build_secret_world(tmp_path / "world")
    async with make_client(world_dir=str(world)) as (_app, client):
        logs, logs_done, _ = await _ask(client, "grep 'password' in the ledger logs")
        rows, rows_done, rows_trace = await _ask(
            client, "run this SQL on ledgerdb: SELECT * FROM service_accounts"
        )
    assert logs_done == rows_done == {"outcome": "SUCCESS"}
    [line] = logs["payload"]["tables"][0]["rows"]
    assert line[1] == "ledger" and '"password": "[REDACTED]"' in line[-1]
    [table] = rows["payload"]["tables"]
    assert table["kind"] == "rows" and table["columns"] == ["name", "password", "note"]
    assert [row[1] for row in table["rows"]] == ["[REDACTED]", ""]
    released = json.dumps([logs, rows, rows_trace])
    for secret in SECRETS:
        assert secret not in released
