"""The AIOps rule evaluation, computed from what was released for each alert group, never assumed.

An alert group counts as addressed only when its released report is about it: not degraded, naming
the group's alert or its identity, and with a root cause (if any) on the group's own system or a
report that ties the two together. Root causes are backed only when findings cite evidence that was
released as succeeded; runbooks count as cited only when a recommendation names one and knowledge
evidence answered. Pure functions on plain data, so the stored figures can be recomputed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

SUCCEEDED = frozenset({"OK", "EMPTY"})
MAX_LISTED = 50


class GroupLike(Protocol):
    @property
    def alertname(self) -> str: ...
    @property
    def service(self) -> str | None: ...
    @property
    def identity(self) -> str: ...


def evaluate_released(
    groups: Sequence[GroupLike],
    released: Sequence[tuple[GroupLike, Mapping[str, Any] | None]],
    runbooks_available: bool,
) -> dict[str, Any]:
    """Deterministic checks of the AIOps report from each group's released payload (None: failed)."""
    by_key = {(g.alertname, g.identity): payload for g, payload in released}
    unaddressed: list[dict[str, Any]] = []
    misattributed: list[dict[str, Any]] = []
    unbacked = unsupported = uncited = 0
    verdicts: dict[str, int] = {}
    for group in groups:
        payload = by_key.get((group.alertname, group.identity))
        head = {"alertname": group.alertname, "service": group.service, "identity": group.identity}
        if not _about(group, payload):
            unaddressed.append(head)
            continue
        assert payload is not None
        verdict = str(payload.get("verdict") or ("healthy" if payload.get("healthy") else "incident"))
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
        root = payload.get("root_cause")
        if isinstance(root, Mapping) and not _own_cause(group, root, payload):
            misattributed.append(head | {"root_cause_service": root.get("service")})
        unsupported += len(_unsupported(payload))
        if isinstance(root, Mapping) and not _backed(payload):
            unbacked += 1
        if runbooks_available and isinstance(root, Mapping) and not _runbook_cited(payload):
            uncited += 1
    checks = {
        "every_alert_addressed": not unaddressed,
        "each_group_under_its_own_identity": not misattributed,
        "root_causes_backed_by_evidence": unbacked == 0 and unsupported == 0,
        "runbooks_cited": uncited == 0,
        "no_unsupported_claims": unsupported == 0,
    }
    return {
        "passed": all(checks.values()),
        "checks": checks,
        "unaddressed": unaddressed[:MAX_LISTED],
        "misattributed": misattributed[:MAX_LISTED],
        "verdicts": verdicts,
    }


def _text(payload: Mapping[str, Any]) -> str:
    parts = [str(payload.get("summary") or "")]
    root = payload.get("root_cause")
    if isinstance(root, Mapping):
        parts += [str(root.get("service") or ""), str(root.get("statement") or "")]
    parts += [str(f.get("statement") or "") for f in payload.get("findings") or [] if isinstance(f, Mapping)]
    return "\n".join(parts).lower()


def _about(group: GroupLike, payload: Mapping[str, Any] | None) -> bool:
    """A released, non-degraded report that names the group's alert or the system it fires on."""
    if payload is None or payload.get("degraded"):
        return False
    text = _text(payload)
    names = [group.alertname, group.service or "", *group.identity.split()]
    return any(name and name.lower() in text for name in names)


def _own_cause(group: GroupLike, root: Mapping[str, Any], payload: Mapping[str, Any]) -> bool:
    """The root cause is the group's own system, or the report names the group's system or alert
    beside another cause (a chain the findings state), never another group's cause alone."""
    service = str(root.get("service") or "").lower()
    own = [n.lower() for n in (group.service, *(p.split("=", 1)[-1] for p in group.identity.split())) if n]
    if service and any(service == name or service in name or name in service for name in own):
        return True
    findings = " ".join(
        str(f.get("statement") or "") for f in payload.get("findings") or [] if isinstance(f, Mapping)
    ).lower()
    return bool(own) and any(name in findings for name in own)


def _succeeded_ids(payload: Mapping[str, Any]) -> set[str]:
    return {
        str(e.get("id"))
        for e in payload.get("evidence") or []
        if isinstance(e, Mapping) and e.get("status") in SUCCEEDED
    }


def _unsupported(payload: Mapping[str, Any]) -> list[int]:
    """Findings citing nothing, or an id not released as succeeded evidence."""
    succeeded = _succeeded_ids(payload)
    return [
        number
        for number, finding in enumerate(payload.get("findings") or [], 1)
        if not (ids := finding.get("evidence_ids") or []) or any(str(i) not in succeeded for i in ids)
    ]


def _backed(payload: Mapping[str, Any]) -> bool:
    succeeded = _succeeded_ids(payload)
    return any(
        (ids := f.get("evidence_ids") or []) and all(str(i) in succeeded for i in ids)
        for f in payload.get("findings") or []
        if isinstance(f, Mapping)
    )


def _runbook_cited(payload: Mapping[str, Any]) -> bool:
    knowledge = any(
        isinstance(e, Mapping) and e.get("source") == "knowledge" and e.get("status") == "OK"
        for e in payload.get("evidence") or []
    )
    named = any(isinstance(r, Mapping) and r.get("runbook") for r in payload.get("recommendations") or [])
    return knowledge and named
