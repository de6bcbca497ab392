"""Alert groups: alerts grouped by (alertname, identity), keeping counts and the instances involved.

The identity is `tools.identity`'s (service, app, job, workload, else the instance): a rule that
aggregates `by (instance)` groups per instance. An alert with no identity label at all is grouped by
alertname and instance, never dropped. Nothing is de-duplicated away: three firing instances of one
service are one group of count 3 naming all three, and each keeps its own identity text
(`job=node instance=db1:9100 mountpoint=/data`), its labels, annotations and Alertmanager state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tools.digest.labels import clip, instance_of, iso_utc, parse_instant
from tools.digest.limits import DigestLimits
from tools.facts import AlertGroup
from tools.identity import identity_of

_SEVERITY_RANK: Mapping[str, int] = {
    "critical": 0, "page": 0, "high": 1, "error": 1, "major": 1,
    "warning": 2, "warn": 2, "medium": 2, "minor": 3, "low": 3, "info": 4, "none": 5,
}  # fmt: skip
_STATUS_RANK: Mapping[str, int] = {"firing": 0, "active": 0, "pending": 1, "resolved": 2}
_SUMMARY_KEYS = ("summary", "description", "message", "title")
_VALUE_KEYS = ("value", "current_value", "currentValue")
# Labels and annotations kept per group (the first alert's), each value clipped: evidence holds all.
_MAX_KEPT_LABELS = 30
_KEPT_VALUE_CHARS = 200


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
    identities: list[str] = field(default_factory=list)
    value: str | None = None
    silenced: int = 0
    inhibited: int = 0
    muted: int = 0
    silence_comment: str | None = None
    silenced_until: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    episodes: int = 0
    ended_at: datetime | None = None
    history_id: str | None = None


class AlertGrouper:
    """Folds the alerts of several evidence items into groups; a group keeps its first id."""

    def __init__(self, limits: DigestLimits) -> None:
        self._limits = limits
        self._groups: dict[tuple[str, object], _Group] = {}

    def add(self, evidence_id: str, data: Mapping[str, Any]) -> None:
        """Fold one evidence item's alerts in."""
        for raw in data.get("alerts") or []:
            if not isinstance(raw, Mapping):
                continue
            labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
            annotations = {str(k): str(v) for k, v in (raw.get("annotations") or {}).items()}
            group, new = self._group_of(evidence_id, labels)
            if new:
                group.annotations = _kept(annotations)
            _add(group, labels, annotations, raw, self._limits)

    def add_history(self, evidence_id: str, data: Mapping[str, Any]) -> None:
        """Fold an alert history in (after every alert list): each entry's episodes count toward its
        group, and an alert no list shows any more becomes a resolved group with when it ended."""
        for raw in data.get("history") or []:
            if not isinstance(raw, Mapping):
                continue
            episodes = [e for e in raw.get("episodes") or [] if isinstance(e, Mapping)]
            labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
            if not episodes or not labels.get("alertname"):
                continue
            group, new = self._group_of(evidence_id, labels)
            if new:
                group.count = 1
                group.first_started = parse_instant(episodes[-1].get("startsAt"))
                group.severity = labels.get("severity") or labels.get("priority")
                if raw.get("firing_now"):
                    group.status = "firing"
            group.episodes += len(episodes)
            group.history_id = group.history_id or evidence_id
            if group.status != "firing":
                ended = parse_instant(episodes[-1].get("endsAt"))
                if ended is not None and (group.ended_at is None or ended > group.ended_at):
                    group.ended_at = ended

    def _group_of(self, evidence_id: str, labels: Mapping[str, str]) -> tuple[_Group, bool]:
        """The group of an alert's labels (created when new) with its identity text recorded, and
        whether it was created."""
        name = labels.get("alertname") or "unnamed"
        identity = identity_of(labels, self._limits.identity)
        # No identity label at all: alertname and whatever names the instance (host, node...).
        key: object = identity.key or ("instance", instance_of(labels))
        group = self._groups.get((name, key))
        new = group is None
        if group is None:
            service = identity.name or instance_of(labels)
            group = self._groups[(name, key)] = _Group(evidence_id, name, service)
            group.labels = _kept(labels)
        text = identity.text or (f"instance={instance_of(labels)}" if instance_of(labels) else "")
        if text and text not in group.identities and len(group.identities) < self._limits.max_instances:
            group.identities.append(text)
        return group, new

    def groups(self) -> list[AlertGroup]:
        """Ranked facts: firing first, then by severity, count and who started first."""
        ordered = sorted(self._groups.values(), key=_group_order)
        return [_fact(g) for g in ordered[: self._limits.max_alert_groups]]


def _group_order(g: _Group) -> tuple[int, bool, int, int, str, str, str]:
    return (
        _STATUS_RANK.get(g.status, 3),
        g.muted >= g.count,  # a wholly silenced or inhibited group is already known: after the rest
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
        identities=list(g.identities),
        value=g.value,
        silenced=g.silenced,
        inhibited=g.inhibited,
        muted=g.muted,
        silence_comment=g.silence_comment,
        silenced_until=g.silenced_until,
        labels=dict(g.labels),
        annotations=dict(g.annotations),
        episodes=g.episodes,
        ended_at=iso_utc(g.ended_at) if g.ended_at else None,
        history_id=g.history_id,
    )


def _kept(values: Mapping[str, str]) -> dict[str, str]:
    return {k: clip(v, _KEPT_VALUE_CHARS) for k, v in list(values.items())[:_MAX_KEPT_LABELS]}


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
    if group.value is None:
        value = next((annotations[k] for k in _VALUE_KEYS if annotations.get(k)), None)
        raw_value = raw.get("value")
        if value is None and isinstance(raw_value, str | int | float) and not isinstance(raw_value, bool):
            value = str(raw_value)
        group.value = clip(value, 60) if value else None
    _add_suppression(group, raw)


def _add_suppression(group: _Group, raw: Mapping[str, Any]) -> None:
    silenced, inhibited = bool(raw.get("silenced")), bool(raw.get("inhibited"))
    group.silenced += silenced
    group.inhibited += inhibited
    group.muted += silenced or inhibited
    if silenced and group.silence_comment is None:
        comment = raw.get("silenceComment")
        group.silence_comment = clip(str(comment), 200) if comment else None
        until = parse_instant(raw.get("silencedUntil"))
        group.silenced_until = iso_utc(until) if until else None
