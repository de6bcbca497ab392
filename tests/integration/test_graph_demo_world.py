"""The rule-based analyst on the bundled demo world, through the real toolbox and fixture backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graph.analysts.base import Draft
from graph.analysts.llm.prompts import PROMPT_LINES
from graph.analysts.rules import RuleAnalyst
from graph.build import build_graph
from graph.nodes.evidence_guard.checks import check_draft
from graph.nodes.evidence_guard.corpus import build_corpus, run_entities, runbook_names
from graph.recorder import SilentObserver
from graph.runner import DiagnosisRunner, RunParts, RunRequest, RunResult
from tools.alertmanager.fixture import AlertmanagerFixture
from tools.base import Sources
from tools.digest import build_digest
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.loki.fixture import LokiFixture
from tools.prometheus.fixture import PrometheusFixture
from tools.runbooks.library import RunbookLibrary
from tools.sql.fixture import SqliteWorldDatasources
from tools.toolbox import Toolbox
from tools.world import World, load_world

DEMO = Path(__file__).resolve().parents[2] / "tools" / "demo_world"
WORLD = load_world(DEMO)
GRAPH = build_graph()


def _toolbox(world: World, directory: Path) -> Toolbox:
    sources = Sources(
        alerts=AlertmanagerFixture(world),
        metrics=PrometheusFixture(world),
        logs=LokiFixture(world),
        sql=SqliteWorldDatasources(directory / "sql"),
        knowledge=RunbookLibrary(directory / "docs"),
    )
    return Toolbox(sources, ToolLimits(), EvidenceCache(ttl_s=30.0, capacity=256))


async def _diagnose(question: str) -> tuple[RunResult, RunEvidence]:
    evidence = RunEvidence(budget_bytes=1_048_576)
    rules = RuleAnalyst()
    parts = RunParts(
        analyst=rules,
        rules=rules,
        forbidden_lines=PROMPT_LINES,
        toolbox=_toolbox(WORLD, DEMO),
        evidence=evidence,
        digest=build_digest,
    )
    request = RunRequest(run_id="demo", session_id="demo", query=question)
    result = await DiagnosisRunner(GRAPH).start(request, parts, SilentObserver()).result()
    return result, evidence


@pytest.mark.parametrize("scenario", WORLD.scenarios, ids=lambda s: s.id)
async def test_demo_scenarios_meet_their_expectations(scenario: Any) -> None:
    result, evidence = await _diagnose(scenario.question)
    assert result.outcome == "SUCCESS", result.self_evaluation
    payload = result.content["payload"]
    text = json.dumps(payload).lower()
    expect = scenario.expect
    if expect.root_cause_service:
        assert payload["root_cause"]["service"] == expect.root_cause_service
    if expect.category:
        assert payload["root_cause"]["category"] == expect.category
    for keyword in expect.keywords_all or []:
        assert keyword.lower() in text, keyword
    for keyword in expect.keywords_none or []:
        assert keyword.lower() not in text, keyword
    cited = {i for f in payload.get("findings", []) for i in f.get("evidence_ids", [])}
    cited |= {s["id"] for s in payload.get("sources", [])}
    sources = {item.source.value for item in evidence.all() if item.id in cited}
    assert set(expect.evidence_sources or []) <= sources
    if expect.healthy is not None:
        assert payload.get("healthy") is expect.healthy


async def test_payment_is_the_root_cause_and_the_red_herring_is_ruled_out() -> None:
    result, evidence = await _diagnose("Why is checkout slow and failing for customers right now?")
    payload = result.content["payload"]
    assert payload["root_cause"]["service"] == "payment"
    assert "report-batch" in [item["service"] for item in payload["ruled_out"]]
    assert "report-batch" in payload["summary"]
    # Every finding's claims are in the evidence it cites (checked again, outside the graph).
    items = evidence.all()
    now = WORLD.now
    draft = Draft.model_validate(
        {
            k: payload[k]
            for k in (
                "summary",
                "healthy",
                "root_cause",
                "findings",
                "recommendations",
                "open_questions",
                "ruled_out",
            )
        }
    )
    verdict = check_draft(
        draft,
        build_corpus(items, build_digest(items, now=now)),
        entities=run_entities(items),
        runbook_text=runbook_names(items),
    )
    assert verdict.violations == []
    assert len(payload["findings"]) >= 4
