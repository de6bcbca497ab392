"""Verdicts: right (names the culprit; or, healthy/recovered, names no cause), wrong (misses the culprit
or blames the monitoring stack), invented (a cause where there is none), error (no terminal answer)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from tests.lab.service import Answer

Verdict = Literal["right", "wrong", "invented", "error"]

MONITORING_JOBS = frozenset({"prometheus", "alertmanager", "pushgateway", "grafana"})
# The monitoring stack's own telemetry: a cause naming one of these series blames the watchers.
_MONITORING_SERIES = re.compile(r"\b(?:prometheus|alertmanager|go|process|promhttp|scrape)_[a-z_]+")


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    named: str
    blames_monitoring: bool = False


def blames_monitoring(root: dict[str, object]) -> bool:
    service = str(root.get("service", "")).lower()
    text = f"{service} {root.get('statement', '')}".lower()
    return service in MONITORING_JOBS or bool(_MONITORING_SERIES.search(text))


def judge(answer: Answer, culprits: tuple[str, ...]) -> Judgement:
    """`culprits` empty means no cause is expected (healthy or recovered)."""
    if not answer.terminal:
        return Judgement("error", f"http {answer.http_status}, no done event")
    root = answer.root_cause
    if root is None:
        named = "no root cause" + (" (fallback)" if answer.outcome == "FALLBACK" else "")
        return Judgement("right" if not culprits else "wrong", named)
    named = f"{root.get('service')}: {str(root.get('statement', ''))[:90]}"
    monitoring = blames_monitoring(root)
    if not culprits:
        return Judgement("invented", named, monitoring)
    text = f"{root.get('service', '')} {root.get('statement', '')}".lower()
    right = not monitoring and any(token.lower() in text for token in culprits)
    return Judgement("right" if right else "wrong", named, monitoring)
