"""EvidenceGuard on plain data: citations, claims in cited evidence, confidence caps."""

from __future__ import annotations

from typing import Any

from graph.analysts.base import Draft, Finding, Recommendation, RootCause
from graph.nodes.evidence_guard.checks import check_draft
from graph.nodes.evidence_guard.corpus import build_corpus, run_entities, runbook_names
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.facts import Digest


def _item(
    evidence_id: str, source: EvidenceSource, data: dict[str, Any], *, ok: bool = True, summary: str = ""
) -> Evidence:
    status = EvidenceStatus.OK if ok else EvidenceStatus.UNAVAILABLE
    return Evidence(
        id=evidence_id,
        source=source,
        tool="t",
        title="t",
        summary=summary,
        data=data,
        query={},
        status=status,
    )


ALERTS = _item(
    "alerts-1",
    EvidenceSource.ALERTS,
    {
        "alerts": [
            {
                "labels": {"alertname": "PoolSaturated", "service": "payment", "instance": "payment-7f9c"},
                "annotations": {"summary": "pool 95% busy"},
                "startsAt": "2026-11-30T09:27:00Z",
                "status": "firing",
            }
        ]
    },
)
LOGS = _item(
    "logs-1",
    EvidenceSource.LOGS,
    {
        "lines": [
            {
                "ts": "2026-11-30T09:25:00Z",
                "labels": {"service": "checkout"},
                "message": "Upstream payment timed out after 5000ms: SocketTimeoutException",
            }
        ]
    },
)
METRICS = _item(
    "metrics-1",
    EvidenceSource.METRICS,
    {
        "series": [
            {"metric": "error_ratio", "labels": {"service": "inventory"}, "samples": [[1796030700, 0.95]]}
        ]
    },
)
CASES = _item("cases-1", EvidenceSource.CASES, {"cases": [{"root_cause_service": "payment"}]})
DOWN = _item("metrics-2", EvidenceSource.METRICS, {}, ok=False)
RUNBOOK = _item("knowledge-1", EvidenceSource.KNOWLEDGE, {"passages": [{"file": "pool.md"}]})
ITEMS = [ALERTS, LOGS, METRICS, CASES, DOWN, RUNBOOK]


def _check(draft: Draft, items: list[Evidence] = ITEMS) -> Any:
    return check_draft(
        draft, build_corpus(items, Digest()), entities=run_entities(items), runbook_text=runbook_names(items)
    )


def _draft(*findings: Finding, root: RootCause | None = None, **extra: Any) -> Draft:
    return Draft(summary="See the findings.", findings=list(findings), root_cause=root, **extra)


def test_guard_passes_claims_found_in_cited_evidence() -> None:
    draft = _draft(
        Finding(
            statement="PoolSaturated fired on payment-7f9c at 09:27 with the pool 95% busy.",
            evidence_ids=["alerts-1"],
        ),
        Finding(
            statement='checkout logged "Upstream payment timed out after 5000ms".', evidence_ids=["logs-1"]
        ),
    )
    assert _check(draft).violations == []


def test_guard_rejects_unknown_id() -> None:
    result = _check(_draft(Finding(statement="payment is down.", evidence_ids=["alerts-99"])))
    assert any("unknown evidence id 'alerts-99'" in v for v in result.violations)


def test_guard_rejects_failed_evidence_and_missing_citations() -> None:
    result = _check(
        _draft(
            Finding(statement="metrics say so.", evidence_ids=["metrics-2"]),
            Finding(statement="no citation here.", evidence_ids=[]),
        )
    )
    assert any("did not succeed" in v for v in result.violations)
    assert any("cites no evidence" in v for v in result.violations)


def test_guard_rejects_number_not_in_cited_evidence() -> None:
    result = _check(_draft(Finding(statement="pool 97% busy on payment.", evidence_ids=["alerts-1"])))
    assert any("number '97%'" in v for v in result.violations)


def test_guard_tolerates_number_formatting() -> None:
    draft = _draft(Finding(statement="inventory error ratio reached 95%.", evidence_ids=["metrics-1"]))
    assert _check(draft).violations == []


def test_guard_rejects_service_absent_from_cited_evidence() -> None:
    result = _check(_draft(Finding(statement="inventory timed out.", evidence_ids=["logs-1"])))
    assert any("entity 'inventory'" in v for v in result.violations)


def test_guard_rejects_invented_error_string() -> None:
    result = _check(
        _draft(Finding(statement='checkout threw "Connection refused by payment".', evidence_ids=["logs-1"]))
    )
    assert any("quote" in v for v in result.violations)
    result = _check(_draft(Finding(statement="checkout threw ConnectException.", evidence_ids=["logs-1"])))
    assert any("connectexception" in v for v in result.violations)


def test_guard_rejects_healthy_draft_with_root_cause() -> None:
    root = RootCause(service="payment", category="x", statement="payment.", confidence=0.5)
    draft = _draft(Finding(statement="payment alert.", evidence_ids=["alerts-1"]), root=root, healthy=True)
    assert any("healthy" in v for v in _check(draft).violations)


def test_guard_rejects_unknown_runbook() -> None:
    draft = _draft(
        Finding(statement="payment alert.", evidence_ids=["alerts-1"]),
        recommendations=[Recommendation(action="read it", runbook="other.md")],
    )
    assert any("runbook 'other.md'" in v for v in _check(draft).violations)


def test_guard_caps_confidence_when_key_source_failed_or_evidence_thin() -> None:
    root = RootCause(service="payment", category="x", statement="payment.", confidence=0.95)
    draft = _draft(Finding(statement="payment alert.", evidence_ids=["alerts-1"]), root=root)
    result = _check(draft)
    assert result.passed
    assert result.draft.root_cause is not None
    assert result.draft.root_cause.confidence == 0.5
    assert any("key source failed" in reason for reason in result.cap_reasons)
    assert any("thin" in reason for reason in result.cap_reasons)


def test_guard_caps_confidence_when_only_cases_support() -> None:
    root = RootCause(service="payment", category="x", statement="payment.", confidence=0.9)
    draft = _draft(Finding(statement="A past case blamed payment.", evidence_ids=["cases-1"]), root=root)
    result = _check(draft, [ALERTS, CASES])
    assert result.draft.root_cause is not None
    assert result.draft.root_cause.confidence == 0.3


def test_the_summary_heading_is_no_claim_even_when_a_user_is_called_root() -> None:
    sessions = _item("sql-1", EvidenceSource.SQL, {"holders": [{"application": "root", "sessions": 2}]})
    finding = Finding(statement="PoolSaturated fired on payment-7f9c.", evidence_ids=["alerts-1"])
    draft = Draft(summary="Root cause: payment (saturation).", findings=[finding])
    assert _check(draft, [*ITEMS, sessions]).violations == []
    invented = Draft(summary="Root cause: payment, and root holds the pool.", findings=[finding])
    assert any("entity 'root'" in v for v in _check(invented, [*ITEMS, sessions]).violations)


def test_a_database_timestamp_written_with_a_space_backs_its_iso_time() -> None:
    rows = _item(
        "sql-3",
        EvidenceSource.SQL,
        {"columns": ["captured_at", "mode"], "rows": [["2027-08-03 10:24:30+00", "AccessExclusiveLock"]]},
    )
    seen = Finding(
        statement="Datasource db shows: captured_at=2027-08-03 10:24:30+00.", evidence_ids=["sql-3"]
    )
    assert _check(_draft(seen), [rows]).violations == []
    other = Finding(
        statement="Datasource db shows: captured_at=2027-08-03 11:24:30+00.", evidence_ids=["sql-3"]
    )
    assert _check(_draft(other), [rows]).violations  # another time is still not there


def test_a_quote_holding_the_lines_own_double_quotes_is_found_in_the_json_text() -> None:
    pulled = _item(
        "logs-7",
        EvidenceSource.LOGS,
        {"lines": [{"ts": "2026-11-30T09:20:00Z", "message": 'Pulling image "registry.example/api:3.8.0"'}]},
    )
    draft = _draft(
        Finding(
            statement='api changed: `Pulling image "registry.example/api:3.8.0"`.', evidence_ids=["logs-7"]
        )
    )
    assert _check(draft, [pulled]).violations == []
    wrong = _draft(
        Finding(
            statement='api changed: `Pulling image "registry.example/api:3.9.0"`.', evidence_ids=["logs-7"]
        )
    )
    assert _check(wrong, [pulled]).violations


def test_a_healthy_draft_names_a_cause_only_when_asked_what_caused_trouble_that_has_ended() -> None:
    draft = _draft(
        Finding(statement="PoolSaturated fired on payment-7f9c at 09:27.", evidence_ids=["alerts-1"]),
        root=RootCause(service="payment", category="connections", statement="PoolSaturated", confidence=0.6),
        verdict="healthy",
    )
    assert "draft says healthy but names a root cause" in _check(draft).violations
    items = ITEMS
    past = check_draft(
        draft,
        build_corpus(items, Digest()),
        entities=run_entities(items),
        runbook_text=runbook_names(items),
        past_cause=True,
    )
    assert past.violations == []
