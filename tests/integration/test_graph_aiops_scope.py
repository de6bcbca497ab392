"""Each AIOps alert group of the demo world, diagnosed through the diagnoser the composition root builds.

A group's question is about one service's alert: a downstream victim still gets its upstream cause,
and an unrelated alert with nothing else about its service is an incident whose cause is not
established (issue 22), never the concurrent incident.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest

from api.aiops_flow import AlertGroupRef, group_alerts
from api.backends import world_sources
from api.diagnoser import Diagnoser, build_diagnoser
from api.settings import Settings
from graph.recorder import SilentObserver
from graph.runner import RunRequest
from tools.demo_world import DEMO_WORLD_DIR
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.toolbox import Toolbox
from tools.world import load_world

# What each demo alert group must be answered with: (root cause service, category), or None for an
# alert nothing else explains (no root cause is invented).
EXPECTED: dict[tuple[str, str], tuple[str, str] | None] = {
    ("DBConnectionPoolSaturated", "payment"): ("payment", "connection_pool_exhaustion"),
    ("HighErrorRate", "payment"): ("payment", "connection_pool_exhaustion"),
    ("HighLatencyP99", "payment"): ("payment", "connection_pool_exhaustion"),
    ("HighLatencyP99", "checkout"): ("payment", "connection_pool_exhaustion"),
    ("HighCPUUsage", "report-batch"): None,
}


@pytest.fixture(scope="module")
def diagnoser() -> Diagnoser:
    toolbox = Toolbox(
        world_sources(load_world(DEMO_WORLD_DIR)), ToolLimits(), EvidenceCache(ttl_s=30.0, capacity=256)
    )
    return build_diagnoser(Settings(), toolbox, use_model=False)


async def _groups(diagnoser: Diagnoser) -> list[AlertGroupRef]:
    scan = await diagnoser.toolbox.call("list_alerts", {}, RunEvidence(budget_bytes=1_048_576))
    return group_alerts(scan.data.get("alerts", []), [])


async def _ask(
    diagnoser: Diagnoser, query: str, services: list[str], flow: Literal["CHAT", "AI_OPS"]
) -> dict[str, Any]:
    request = RunRequest(
        run_id="scope", session_id="scope", query=query, history=[], flow=flow, services=services
    )
    result = await diagnoser.start(request, observer=SilentObserver()).result()
    assert result.outcome == "SUCCESS", result.self_evaluation
    payload: dict[str, Any] = result.content["payload"]
    return payload


async def test_the_demo_world_has_the_five_alert_groups(diagnoser: Diagnoser) -> None:
    groups = await _groups(diagnoser)
    assert {(g.alertname, g.service) for g in groups} == set(EXPECTED)


@pytest.mark.parametrize("key", list(EXPECTED), ids=lambda key: f"{key[0]}-{key[1]}")
async def test_each_alert_group_gets_its_own_root_cause(diagnoser: Diagnoser, key: tuple[str, str]) -> None:
    alertname, service = key
    payload = await _ask(
        diagnoser, f"Alert {alertname} is firing on {service}. What is the root cause?", [service], "AI_OPS"
    )
    assert payload["verdict"] == "incident"
    if (expected := EXPECTED[key]) is None:
        assert payload["root_cause"] is None
        assert f"Alert {alertname} is firing on {service}" in payload["summary"]
        assert "cause is not established" in payload["summary"]
        return
    expected_service, expected_category = expected
    assert payload["root_cause"]["service"] == expected_service
    assert payload["root_cause"]["category"] == expected_category
    assert payload["findings"] and all(f["evidence_ids"] for f in payload["findings"])


async def test_an_unrelated_alert_names_the_concurrent_incident_as_unrelated(
    diagnoser: Diagnoser,
) -> None:
    payload = await _ask(
        diagnoser,
        "Alert HighCPUUsage is firing on report-batch. What is the root cause?",
        ["report-batch"],
        "AI_OPS",
    )
    assert "Also happening: payment" in payload["summary"]
    assert "Root cause: payment" not in payload["summary"]
    assert [item["service"] for item in payload["ruled_out"]] == ["payment"]
    # Nothing about payment's incident is offered as evidence for report-batch's alert.
    assert all("payment" not in f["statement"].lower() for f in payload["findings"])


async def test_the_chat_question_still_blames_payment_and_rules_out_the_batch_job(
    diagnoser: Diagnoser,
) -> None:
    payload = await _ask(diagnoser, "Why is checkout slow and failing for customers right now?", [], "CHAT")
    assert payload["root_cause"]["service"] == "payment"
    assert "report-batch" in [item["service"] for item in payload["ruled_out"]]
