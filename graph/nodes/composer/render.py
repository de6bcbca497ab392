"""Renders a verified draft into the typed content payload the client receives."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.analysts.base import Draft
from tools.base import Evidence

MAX_EVIDENCE_LISTED = 50
REPORT = "diagnosis_report"
ANSWER = "answer"


def evidence_list(items: Sequence[Evidence]) -> list[dict[str, Any]]:
    """Public view of collected evidence: ids, sources, tools, titles, statuses; never data."""
    return [item.public() for item in items[:MAX_EVIDENCE_LISTED]]


def render_content(draft: Draft, items: Sequence[Evidence]) -> dict[str, Any]:
    """`{content_type, payload}`: a diagnosis report, or a short answer with its sources."""
    if draft.kind == "answer":
        cited = {i for finding in draft.findings for i in finding.evidence_ids}
        return {
            "content_type": ANSWER,
            "payload": {
                "text": draft.summary,
                "points": [finding.statement for finding in draft.findings],
                "sources": evidence_list([item for item in items if item.id in cited]),
                "degraded": False,
            },
        }
    return {"content_type": REPORT, "payload": _report(draft, items)}


def _report(draft: Draft, items: Sequence[Evidence]) -> dict[str, Any]:
    root = draft.root_cause
    return {
        "summary": draft.summary,
        "verdict": draft.verdict,
        "healthy": draft.healthy,
        "root_cause": root.model_dump() if root is not None else None,
        "findings": [finding.model_dump() for finding in draft.findings],
        "evidence": evidence_list(items),
        "recommendations": [rec.model_dump() for rec in draft.recommendations],
        "open_questions": list(draft.open_questions),
        "ruled_out": [item.model_dump() for item in draft.ruled_out],
        "degraded": False,
    }
