"""The `count_logs` tool and a log read from a stated time: exact counts over the filters, "at least"
past what it reads, a window that starts where the question says, and a lookup table of the count."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graph.nodes.lookup.tables import lookup_answer
from tests.support.world_builder import TIMEOUT_PHRASE, build_contract_world
from tools.base import EvidenceStatus, Sources, status_pattern
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.loki import LokiFixture
from tools.loki import tools as log_tools
from tools.toolbox import Toolbox
from tools.world import World, load_world

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _world(tmp_path: Path) -> World:
    return load_world(build_contract_world(tmp_path, NOW).path)


def _toolbox(world: World) -> Toolbox:
    return Toolbox(Sources(logs=LokiFixture(world)), ToolLimits(), EvidenceCache(ttl_s=30, capacity=16))


async def test_a_count_is_exact_over_the_filters_and_starts_where_asked(tmp_path: Path) -> None:
    world = _world(tmp_path)
    toolbox = _toolbox(world)
    since = world.now - timedelta(minutes=60)

    errors = await toolbox.call(
        "count_logs", {"service": "ledger", "contains": TIMEOUT_PHRASE}, RunEvidence(budget_bytes=10**6)
    )
    dated = await toolbox.call(
        "count_logs",
        {"service": "relay", "status_class": "5xx", "since": since.isoformat()},
        RunEvidence(budget_bytes=10**6),
    )
    expected = sum(
        1 for line in world.logs if line.service == "relay" and line.ts >= since and '" 503 ' in line.message
    )

    assert errors.status is EvidenceStatus.OK and errors.data["count"] == sum(
        1
        for line in world.logs
        if TIMEOUT_PHRASE in line.message and line.ts >= world.now - timedelta(minutes=60)
    )
    assert dated.data["count"] == expected > 0 and not dated.data["at_least"]
    assert dated.query["start"] == since.isoformat().replace("+00:00", "Z")
    table = lookup_answer([dated]).tables[0]
    assert table.kind == "line_counts" and table.rows[0][0] == str(expected)
    assert lookup_answer([dated]).summary == f"{expected} matching log lines"


async def test_a_count_past_what_it_reads_says_at_least(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log_tools, "MAX_COUNTED_LINES", 5)
    evidence = await _toolbox(_world(tmp_path)).call(
        "count_logs", {"service": "ledger"}, RunEvidence(budget_bytes=10**6)
    )
    assert evidence.data == {**evidence.data, "count": 5, "at_least": True}
    assert lookup_answer([evidence]).summary == "at least 5 matching log lines"


async def test_a_start_outside_the_range_or_ahead_of_now_is_refused(tmp_path: Path) -> None:
    toolbox = _toolbox(_world(tmp_path))
    for since in (NOW + timedelta(minutes=5), NOW - timedelta(days=400)):
        refused = await toolbox.call(
            "count_logs", {"since": since.isoformat()}, RunEvidence(budget_bytes=10**6)
        )
        assert refused.status is EvidenceStatus.REJECTED


async def test_a_read_can_end_before_now_and_an_empty_or_future_end_is_refused(tmp_path: Path) -> None:
    world = _world(tmp_path)
    toolbox = _toolbox(world)
    until = world.now - timedelta(minutes=30)
    evidence = await toolbox.call(
        "query_logs",
        {"service": "relay", "window_minutes": 90, "until": until.isoformat()},
        RunEvidence(budget_bytes=10**6),
    )
    stamps = [datetime.fromisoformat(line["ts"].replace("Z", "+00:00")) for line in evidence.data["lines"]]
    assert stamps and max(stamps) < until <= world.now
    assert evidence.query["end"] == until.isoformat().replace("+00:00", "Z")
    for end in (world.now + timedelta(minutes=5), world.now - timedelta(minutes=120)):
        refused = await toolbox.call(
            "query_logs", {"window_minutes": 90, "until": end.isoformat()}, RunEvidence(budget_bytes=10**6)
        )
        assert refused.status is EvidenceStatus.REJECTED


async def test_one_status_is_a_filter_and_a_misspelt_one_is_refused(tmp_path: Path) -> None:
    world = _world(tmp_path)
    toolbox = _toolbox(world)
    one = await toolbox.call("count_logs", {"status_class": "503"}, RunEvidence(budget_bytes=10**6))
    recent = [line for line in world.logs if line.ts >= world.now - timedelta(minutes=60)]
    assert one.data["count"] == sum(1 for line in recent if '" 503 ' in line.message) > 0
    none = await toolbox.call("count_logs", {"status_class": "504"}, RunEvidence(budget_bytes=10**6))
    assert none.data["count"] == 0
    for wrong in ("5x", "50", "600", "5xxx"):
        refused = await toolbox.call("count_logs", {"status_class": wrong}, RunEvidence(budget_bytes=10**6))
        assert refused.status is EvidenceStatus.REJECTED, wrong


def test_a_status_is_found_under_any_spelling_of_its_key() -> None:
    exact = re.compile(status_pattern("504"))
    assert exact.search('{"DownstreamStatus":504,"Duration":3}')
    assert exact.search('GET /q HTTP/1.1" 504 12') and exact.search("status=504 path=/q")
    assert not exact.search('{"DownstreamStatus":503,"Duration":30684504}')
    assert re.search(status_pattern("5xx"), "STATUS: 502")
    # IIS's W3C fields end `sc-status sc-substatus sc-win32-status time-taken`.
    w3c = "2026-08-04 08:47:33 10.30.4.12 GET /docs/download.ashx id=88 443 - 10.30.92.118 - {} 0 1236 1240"
    assert exact.search(w3c.format(504)) and not exact.search(w3c.format(200))
    assert not exact.search("GET /docs/download.ashx id=504 443 - 10.3.9.1 - 200 0 0 12")


def test_a_clients_record_of_the_status_it_got_is_found_too() -> None:
    limited = re.compile(status_pattern("429"))
    assert limited.search("sendgrid: POST https://api.sendgrid.com/v3/mail/send -> 429 Too Many Requests (")
    assert limited.search("upstream answered HTTP/1.1 429") and limited.search("HTTP 429 from the partner")
    assert not limited.search("request_id=429 Foo") and not limited.search("took 429 ms")
    assert re.search(status_pattern("5xx"), "call failed: 503 Service Unavailable")
    # What a tier served is another question: its own records only.
    served = re.compile(status_pattern("4xx", received=False))
    assert not served.search("-> 429 Too Many Requests") and served.search("status=404 path=/x")


async def test_a_read_can_leave_out_one_services_own_lines(tmp_path: Path) -> None:
    """What other streams say, not one system's own chatter: `other_than` (both streams write "=")."""
    world = _world(tmp_path)
    toolbox = _toolbox(world)
    everyone = await toolbox.call("query_logs", {"contains": "="}, RunEvidence(budget_bytes=10**6))
    others = await toolbox.call(
        "query_logs", {"contains": "=", "other_than": "relay"}, RunEvidence(budget_bytes=10**6)
    )
    assert {line["labels"]["service"] for line in everyone.data["lines"]} == {"ledger", "relay"}
    assert {line["labels"]["service"] for line in others.data["lines"]} == {"ledger"}
