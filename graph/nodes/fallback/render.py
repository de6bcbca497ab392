"""The fallback answer: a fixed safe message plus the evidence list; never draft text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.nodes.composer.render import REPORT, evidence_list
from tools.base import Evidence

FALLBACK_MESSAGE = (
    "A verified diagnosis could not be produced for this question. "
    "The evidence collected is listed below for manual review."
)


def render_fallback(items: Sequence[Evidence]) -> dict[str, Any]:
    """The degraded report; the same shape as a diagnosis report so clients need one renderer."""
    return {
        "content_type": REPORT,
        "payload": {
            "summary": FALLBACK_MESSAGE,
            # Nothing was verified: neither an incident nor a healthy system can be claimed.
            "verdict": "inconclusive",
            "healthy": None,
            "root_cause": None,
            "findings": [],
            "evidence": evidence_list(items),
            "recommendations": [],
            "open_questions": [],
            "ruled_out": [],
            "degraded": True,
        },
    }
