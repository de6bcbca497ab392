"""Scoring of the issue-22 expectation fields: verdict, broad category tags, route and released data."""

from __future__ import annotations

from typing import Any

from api.evaluation.scoring import released_verdict, score_answer, totals
from tools.world import ScenarioExpectation


def _report(root: dict[str, Any] | None, **payload: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"summary": "s", "healthy": root is None, "root_cause": root, "findings": []}
    return {"content_type": "diagnosis_report", "payload": base | payload}


def _root(category: str) -> dict[str, Any]:
    return {"service": "ledger-db", "category": category, "statement": "x", "confidence": 0.7}


def test_verdict_is_read_from_the_payload_or_derived_from_a_report() -> None:
    assert released_verdict(_report(None)) == "healthy"
    assert released_verdict(_report(_root("storage"))) == "incident"
    assert released_verdict(_report(None, healthy=False)) == "incident"
    assert released_verdict(_report(None, verdict="Inconclusive")) == "inconclusive"
    assert released_verdict({"content_type": "answer", "payload": {"text": "hi"}}) is None


def test_a_healthy_expectation_misses_when_a_cause_is_invented() -> None:
    expect = ScenarioExpectation(verdict="healthy")
    assert score_answer(expect, _report(None), {})["verdict_hit"] is True
    assert score_answer(expect, _report(_root("disk_full")), {})["verdict_hit"] is False
    assert score_answer(ScenarioExpectation(), _report(None), {})["verdict_hit"] is None


def test_a_broad_tag_is_met_by_the_tag_or_by_an_older_name_that_means_it() -> None:
    expect = ScenarioExpectation(category="storage")
    assert score_answer(expect, _report(_root("storage")), {})["category_hit"] is True
    assert score_answer(expect, _report(_root("disk_full")), {})["category_hit"] is True
    assert score_answer(expect, _report(_root("cpu_saturation")), {})["category_hit"] is False
    # An older world's exact name is still matched exactly and only exactly.
    legacy = ScenarioExpectation(category="disk_full")
    assert score_answer(legacy, _report(_root("storage")), {})["category_hit"] is False


def test_route_and_data_are_judged_on_rows_but_not_on_the_evidence_list() -> None:
    expect = ScenarioExpectation(route="lookup", data_contains=["req-41", "req-77"], data_none=["req-99"])
    rows = [{"ts": "t", "line": "ERROR req-41 timeout"}, {"ts": "t", "line": "ERROR req-77 timeout", "n": 3}]
    evidence = [{"id": "l1", "source": "logs", "title": "query req-99", "status": "OK"}]
    content = {"content_type": "lookup", "payload": {"rows": rows, "evidence": evidence}}
    score = score_answer(expect, content, {}, route="lookup")
    figures = (score["route_hit"], score["data_contains_present"], score["data_none_absent"])
    assert figures == (True, True, True)
    wrong = score_answer(expect, _report(None, summary="No incident found"), {}, route="complex")
    assert (wrong["route_hit"], wrong["data_contains_present"]) == (False, False)
    assert wrong["data_missing"] == ["req-41", "req-77"]
    leaked = {"content_type": "lookup", "payload": {"rows": [*rows, {"line": "INFO req-99 ok"}]}}
    assert score_answer(expect, leaked, {}, route="lookup")["data_forbidden_found"] == ["req-99"]
    summed = totals([score, wrong])
    assert (summed["route_hits"], summed["route_scenarios"], summed["data_hits"]) == (1, 2, 1)
