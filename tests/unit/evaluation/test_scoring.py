"""Scoring of released answers on plain data, without a graph."""

from __future__ import annotations

from typing import Any

from api.evaluation.scoring import score_answer, totals, unsupported_findings
from tools.world import ScenarioExpectation


def _report(**payload: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "summary": "Root cause: payment (connection pool exhaustion).",
        "healthy": False,
        "root_cause": {
            "service": "payment",
            "category": "connection_pool_exhaustion",
            "statement": "payment pool HikariPool-1 is exhausted",
            "confidence": 0.8,
        },
        "findings": [{"statement": "pool at 20/20", "evidence_ids": ["m1"]}],
        "evidence": [
            {"id": "m1", "source": "metrics", "tool": "query_metrics", "title": "pool", "status": "OK"},
            {"id": "l1", "source": "logs", "tool": "query_logs", "title": "logs", "status": "UNAVAILABLE"},
        ],
    }
    return {"content_type": "diagnosis_report", "payload": base | payload}


def test_root_cause_and_category_hits_are_case_insensitive() -> None:
    expect = ScenarioExpectation(root_cause_service="Payment", category="connection_pool_exhaustion")
    score = score_answer(expect, _report(), {})
    assert score["root_cause_service_hit"] is True
    assert score["category_hit"] is True
    assert score["healthy_correct"] is True  # a fault scenario answered as a fault


def test_wrong_service_is_a_miss_and_unset_figures_are_none() -> None:
    score = score_answer(ScenarioExpectation(root_cause_service="checkout"), _report(), {})
    assert score["root_cause_service_hit"] is False
    assert score["category_hit"] is None
    assert score["keywords_all_present"] is None


def test_keywords_all_and_none() -> None:
    expect = ScenarioExpectation(keywords_all=["hikaripool-1", "v9"], keywords_none=["root cause: payment"])
    score = score_answer(expect, _report(), {})
    assert score["keywords_all_present"] is False
    assert score["keywords_missing"] == ["v9"]
    assert score["keywords_none_absent"] is False


def test_healthy_expected_needs_healthy_answer_without_root_cause() -> None:
    expect = ScenarioExpectation(healthy=True)
    assert score_answer(expect, _report(), {})["healthy_correct"] is False
    healthy = _report(healthy=True, root_cause=None, findings=[])
    assert score_answer(expect, healthy, {})["healthy_correct"] is True


def test_fault_answered_healthy_is_wrong() -> None:
    healthy = _report(healthy=True, root_cause=None)
    assert (
        score_answer(ScenarioExpectation(root_cause_service="payment"), healthy, {})["healthy_correct"]
        is False
    )


def test_sources_used_count_only_succeeded_evidence() -> None:
    score = score_answer(ScenarioExpectation(evidence_sources=["metrics", "logs"]), _report(), {})
    assert score["evidence_sources_used"] == ["metrics"]
    assert score["evidence_sources_failed"] == ["logs"]
    assert score["evidence_sources_hit"] is False


def test_findings_citing_failed_or_no_evidence_are_unsupported() -> None:
    findings = [
        {"statement": "ok", "evidence_ids": ["m1"]},
        {"statement": "cites failed", "evidence_ids": ["l1"]},
        {"statement": "cites nothing", "evidence_ids": []},
    ]
    score = score_answer(ScenarioExpectation(), _report(findings=findings), {})
    assert score["unsupported_claims_released"] == 2
    assert score["guard_bound_share"] == 0.333


def test_guard_violations_on_released_findings_count_as_unsupported() -> None:
    evaluation = {
        "evidence_guard": {"passed": False, "violations": ["finding 1 asserts number '99' not found in m1"]}
    }
    assert unsupported_findings(_report()["payload"], evaluation) == [1]
    assert score_answer(ScenarioExpectation(), _report(), evaluation)["unsupported_claims_released"] == 1


def test_confidence_cap_and_unavailable_sources() -> None:
    payload = _report(summary="Metrics were unavailable; payment pool exhausted.")
    score = score_answer(ScenarioExpectation(), payload, {}, max_confidence=0.6, unavailable_sources=["logs"])
    assert score["confidence_within_cap"] is False
    assert score["unavailable_sources_reported"] is False  # logs failed but the answer never says so
    said = _report(summary="Logs were unavailable.")
    assert score_answer(ScenarioExpectation(), said, {}, unavailable_sources=["logs"])[
        "unavailable_sources_reported"
    ]


def test_totals_rates() -> None:
    entries = [
        {"root_cause_service_hit": True, "outcome": "SUCCESS", "tool_calls": 3},
        {"root_cause_service_hit": False, "outcome": "FALLBACK", "unsupported_claims_released": 1},
        {"expect_healthy": True, "healthy_correct": True, "outcome": "SUCCESS"},
    ]
    result = totals(entries)
    assert result["root_cause_hit_rate"] == 0.5
    assert result["healthy_correct"] == 1
    assert result["unsupported_claims_released"] == 1
    assert result["fallbacks"] == 1
    assert result["tool_calls"] == 3
