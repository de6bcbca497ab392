"""Verdicts: right (names the culprit; or, healthy/recovered, names no cause), wrong (misses the culprit
or blames the monitoring stack), invented (a cause where there is none), aside (no cause was induced,
and the answer names the subject of an alert the lab did not induce but that fired when it was asked:
a busy host's CPU is real trouble, not an invention), error (no terminal answer)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tests.lab.service import Answer

Verdict = Literal["right", "wrong", "invented", "aside", "error"]
VERDICTS: tuple[Verdict, ...] = ("right", "wrong", "invented", "aside", "error")

MONITORING_JOBS = frozenset({"prometheus", "alertmanager", "pushgateway", "grafana"})
# The monitoring stack's own telemetry: a cause naming one of these series blames the watchers.
_MONITORING_SERIES = re.compile(r"\b(?:prometheus|alertmanager|go|process|promhttp|scrape)_[a-z_]+")
# Labels of an alert that say nothing about its subject.
_NOT_SUBJECT = frozenset({"alertname", "severity"})


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    named: str
    blames_monitoring: bool = False


def blames_monitoring(root: Mapping[str, object]) -> bool:
    service = str(root.get("service", "")).lower()
    text = f"{service} {root.get('statement', '')}".lower()
    return service in MONITORING_JOBS or bool(_MONITORING_SERIES.search(text))


def judge(
    answer: Answer, culprits: tuple[str, ...], *, foreign: Sequence[Mapping[str, str]] = ()
) -> Judgement:
    """`culprits` empty means no cause is expected (healthy or recovered); `foreign` holds the labels of
    alerts firing when the question was asked that the lab did not induce."""
    if not answer.terminal:
        return Judgement("error", f"http {answer.http_status}, no done event")
    root = answer.root_cause
    if root is None:
        named = "no root cause" + (" (fallback)" if answer.outcome == "FALLBACK" else "")
        return Judgement("right" if not culprits else "wrong", named)
    named = f"{root.get('service')}: {str(root.get('statement', ''))[:90]}"
    monitoring = blames_monitoring(root)
    text = f"{root.get('service', '')} {root.get('statement', '')}".lower()
    if not culprits:
        aside = not monitoring and any(_names_subject(text, labels) for labels in foreign)
        return Judgement("aside" if aside else "invented", named, monitoring)
    right = not monitoring and any(token.lower() in text for token in culprits)
    return Judgement("right" if right else "wrong", named, monitoring)


def _names_subject(text: str, labels: Mapping[str, str]) -> bool:
    """Whether a cause names what an alert is about (its instance, mountpoint, handler, ...)."""
    values = [value.lower() for key, value in labels.items() if key not in _NOT_SUBJECT and value]
    return any(re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text) for value in values)
