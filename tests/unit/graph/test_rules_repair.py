"""Rule-based repair of a root-cause statement the guard rejected part of: the rejected signal goes, the
identity, where it is and the signals the evidence backs stay; the guard then passes the result."""

from __future__ import annotations

from typing import Any

from graph.analysts.base import Draft, Finding, RepairRequest, RootCause, Route
from graph.analysts.rules.repair import repair_draft
from graph.nodes.evidence_guard.checks import check_draft
from graph.nodes.evidence_guard.corpus import build_corpus, run_entities, runbook_names
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.facts import Digest

ALERT = Evidence(
    id="alerts-1",
    source=EvidenceSource.ALERTS,
    tool="t",
    title="t",
    summary="",
    data={
        "alerts": [
            {
                "labels": {"alertname": "VolumeNearlyFull", "instance": "vm-3", "mountpoint": "/srv/spool"},
                "annotations": {"summary": "free space below 10%"},
                "startsAt": "2026-11-30T09:27:00Z",
                "status": "firing",
            }
        ]
    },
    query={},
    status=EvidenceStatus.OK,
)
IDENTITY = "vm-3 (instance=vm-3 mountpoint=/srv/spool)"


def _draft(statement: str) -> Draft:
    return Draft(
        summary="See the findings.",
        findings=[Finding(statement="VolumeNearlyFull fired on vm-3.", evidence_ids=["alerts-1"])],
        root_cause=RootCause(service="vm-3", category="storage", statement=statement, confidence=0.7),
    )


def _violations(draft: Draft) -> list[str]:
    items = [ALERT]
    corpus = build_corpus(items, Digest())
    result = check_draft(draft, corpus, entities=run_entities(items), runbook_text=runbook_names(items))
    return result.violations


def _repaired(draft: Draft) -> Draft:
    request = RepairRequest(
        route=Route(route="complex", resolved_query="why is VolumeNearlyFull firing?"),
        draft=draft,
        violations=_violations(draft),
        evidence=[],
        digest=Digest(),
        now="2026-11-30T09:40:00Z",
        remaining_tool_calls=0,
        may_gather=False,
    )
    repaired = repair_draft(request).draft
    assert repaired is not None
    return repaired


def _statement(draft: Draft) -> Any:
    assert draft.root_cause is not None
    return draft.root_cause.statement


def test_an_unbacked_signal_goes_and_the_identity_and_backed_signals_stay() -> None:
    draft = _draft(
        f'{IDENTITY}: alert VolumeNearlyFull firing since 2026-11-30T09:27:00Z ("free space below 10%"); '
        "load rose from 0.4 to 37 at 09:31."
    )
    assert any("'37'" in v for v in _violations(draft))
    statement = _statement(_repaired(draft))
    assert statement.startswith(IDENTITY) and "/srv/spool" in statement
    assert "VolumeNearlyFull" in statement and "37" not in statement
    assert _violations(_repaired(draft)) == []


def test_an_unbacked_claim_in_the_identity_leaves_only_the_name() -> None:
    draft = _draft('vm-3 (shard 42): alert VolumeNearlyFull ("free space below 10%").')
    assert any("'42'" in v for v in _violations(draft))
    assert _statement(_repaired(draft)) == "vm-3 is the most likely origin."


def test_a_statement_with_nothing_backed_left_keeps_only_the_name() -> None:
    draft = _draft(f"{IDENTITY}: load rose from 0.4 to 37 at 09:31.")
    assert _statement(_repaired(draft)) == "vm-3 is the most likely origin."


def test_a_rejected_summary_with_no_finding_left_says_nothing_verified_remains() -> None:
    draft = Draft(
        summary="Inconclusive: vm-3 logged 90 lines.",
        verdict="inconclusive",
        findings=[Finding(statement="vm-3 logged 90 lines.", evidence_ids=["alerts-1"])],
    )
    repaired = _repaired(draft)
    assert repaired.findings == []
    assert repaired.summary == "The evidence gathered does not support a verified conclusion."
