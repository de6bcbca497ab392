"""Runbook passages and past-case clues as short, citable excerpts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tools.digest.labels import clip
from tools.digest.limits import DigestLimits
from tools.facts import CaseClue, RunbookPassage


def passages_from(evidence_id: str, data: Mapping[str, Any], *, limits: DigestLimits) -> list[RunbookPassage]:
    """The passages of one runbook search, best first."""
    found = [
        RunbookPassage(
            evidence_id=evidence_id,
            file=str(raw.get("file") or ""),
            heading=str(raw.get("heading") or ""),
            excerpt=clip(str(raw.get("text") or ""), limits.excerpt_chars),
            score=_score(raw.get("score")),
        )
        for raw in data.get("passages") or []
        if isinstance(raw, Mapping)
    ]
    return sorted(found, key=lambda p: (-p.score, p.file, p.heading))


def clues_from(evidence_id: str, data: Mapping[str, Any], *, limits: DigestLimits) -> list[CaseClue]:
    """The similar past cases of one case search, best first; clues, never proof."""
    found = [
        CaseClue(
            evidence_id=evidence_id,
            case_id=str(raw.get("case_id") or ""),
            query=clip(str(raw.get("query") or ""), limits.summary_chars),
            root_cause_service=_optional(raw.get("root_cause_service")),
            category=_optional(raw.get("category")),
            excerpt=clip(str(raw.get("answer") or ""), limits.excerpt_chars),
            score=_score(raw.get("score")),
        )
        for raw in data.get("cases") or []
        if isinstance(raw, Mapping)
    ]
    return sorted(found, key=lambda c: (-c.score, c.case_id))


def _score(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return round(float(value), 4)
    return 0.0


def _optional(value: object) -> str | None:
    return str(value) if value not in (None, "") else None
