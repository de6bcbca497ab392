"""Alert groups: alerts grouped by (alertname, service), keeping counts and the instances involved.

Nothing is de-duplicated away: three firing instances are one group of count 3 naming all three.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tools.digest.labels import clip, instance_of, iso_utc, parse_instant, service_of
from tools.digest.limits import DigestLimits
from tools.facts import AlertGroup

_SEVERITY_RANK: Mapping[str, int] = {
    "critical": 0, "page": 0, "high": 1, "error": 1, "major": 1,
    "warning": 2, "warn": 2, "medium": 2, "minor": 3, "low": 3, "info": 4, "none": 5,
}  # fmt: skip
_STATUS_RANK: Mapping[str, int] = {"firing": 0, "active": 0, "pending": 1, "resolved": 2}
_SUMMARY_KEYS = ("summary", "description", "message", "title")


@dataclass(slots=True)
class _Group:
    evidence_id: str
    alertname: str
    service: str | None
    severity: str | None = None
    status: str = "resolved"
    count: int = 0
    instances: list[str] = field(default_factory=list)
    first_started: datetime | None = None
    summary: str = ""


class AlertGrouper:
    """Folds the alerts of several evidence items into groups; a group keeps its first id."""

    def __init__(self, limits: DigestLimits) -> None:
        self._limits = limits
        self._groups: dict[tuple[str, str | None], _Group] = {}

    def add(self, evidence_id: str, data: Mapping[str, Any]) -> None:
        """Fold one evidence item's alerts in."""
        for raw in data.get("alerts") or []:
            if not isinstance(raw, Mapping):
                continue
            labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
            annotations = {str(k): str(v) for k, v in (raw.get("annotations") or {}).items()}
            name = labels.get("alertname") or "unnamed"
            service = service_of(labels)
            group = self._groups.setdefault((name, service), _Group(evidence_id, name, service))
            _add(group, labels, annotations, raw, self._limits)

    def groups(self) -> list[AlertGroup]:
        """Ranked facts: firing first, then by severity, count and who started first."""
        ordered = sorted(self._groups.values(), key=_group_order)
        return [_fact(g) for g in ordered[: self._limits.max_alert_groups]]


def _group_order(g: _Group) -> tuple[int, int, int, str, str, str]:
    return (
        _STATUS_RANK.get(g.status, 3),
        _SEVERITY_RANK.get((g.severity or "none").lower(), 5),
        -g.count,
        g.first_started.isoformat() if g.first_started else "~",
        g.alertname,
        g.service or "",
    )


def _fact(g: _Group) -> AlertGroup:
    return AlertGroup(
        evidence_id=g.evidence_id,
        alertname=g.alertname,
        service=g.service,
        severity=g.severity,
        status=g.status,
        count=g.count,
        instances=list(g.instances),
        first_started=iso_utc(g.first_started) if g.first_started else None,
        summary=g.summary,
    )


def _add(
    group: _Group,
    labels: Mapping[str, str],
    annotations: Mapping[str, str],
    raw: Mapping[str, Any],
    limits: DigestLimits,
) -> None:
    group.count += 1
    status = str(raw.get("status") or "firing").lower()
    if _STATUS_RANK.get(status, 3) < _STATUS_RANK.get(group.status, 3):
        group.status = status
    severity = labels.get("severity") or labels.get("priority")
    if severity and _SEVERITY_RANK.get(severity.lower(), 5) < _SEVERITY_RANK.get(
        (group.severity or "none").lower(), 6
    ):
        group.severity = severity
    instance = instance_of(labels)
    if instance and instance not in group.instances and len(group.instances) < limits.max_instances:
        group.instances.append(instance)
    started = parse_instant(raw.get("startsAt") or raw.get("starts_at"))
    if started and (group.first_started is None or started < group.first_started):
        group.first_started = started
    if not group.summary:
        text = next((annotations[k] for k in _SUMMARY_KEYS if annotations.get(k)), "")
        group.summary = clip(text, limits.summary_chars)
