"""Compact JSON the model reads: the digest and evidence index, bounded, never raw tool output."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from graph.analysts.base import EvidenceRef, Turn
from tools.facts import Digest

MAX_FACTS_PER_KIND = 25
MAX_EVIDENCE_REFS = 60
MAX_PAYLOAD_CHARS = 40_000


def compact(payload: dict[str, Any]) -> str:
    """One-line JSON, cut to a bound so a huge digest cannot blow the token budget."""
    return json.dumps(payload, default=str, separators=(",", ":"), ensure_ascii=False)[:MAX_PAYLOAD_CHARS]


def digest_view(digest: Digest) -> dict[str, Any]:
    anomalies = sorted(digest.anomalies, key=lambda a: a.score, reverse=True)
    patterns = sorted(digest.log_patterns, key=lambda p: p.count, reverse=True)
    return {
        "anomalies": [asdict(a) for a in anomalies[:MAX_FACTS_PER_KIND]],
        "log_patterns": [asdict(p) for p in patterns[:MAX_FACTS_PER_KIND]],
        "alert_groups": [asdict(g) for g in digest.alert_groups[:MAX_FACTS_PER_KIND]],
        "sql": [asdict(s) for s in digest.sql[:MAX_FACTS_PER_KIND]],
        "runbooks": [asdict(r) for r in digest.runbooks[:MAX_FACTS_PER_KIND]],
        "past_cases_clues_only": [asdict(c) for c in digest.cases[:MAX_FACTS_PER_KIND]],
        "unavailable_sources": [asdict(g) for g in digest.gaps[:MAX_FACTS_PER_KIND]],
    }


def evidence_view(refs: Sequence[EvidenceRef]) -> list[dict[str, Any]]:
    return [
        {
            "id": r.id,
            "source": r.source,
            "tool": r.tool,
            "title": r.title,
            "status": r.status,
            "summary": r.summary[:300],
        }
        for r in refs[:MAX_EVIDENCE_REFS]
    ]


def history_view(turns: Sequence[Turn]) -> list[dict[str, Any]]:
    return [asdict(turn) for turn in turns[-5:]]
