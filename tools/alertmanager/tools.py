"""Alertmanager's tools: the active alerts, declared once with their lane and discovery role."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from tools.base import Alert, AlertsSource, EvidenceSource
from tools.digest.labels import service_of
from tools.identity import IdentityLabels, identity_of
from tools.toolbox.args import Name, ToolArgs, mappings
from tools.toolbox.spec import Answer, Found, ToolContext, ToolSpec, iso, require


class ListAlertsArgs(ToolArgs):
    service: Name | None = Field(
        default=None,
        description="only alerts about this system: a service, app, job, workload or instance name",
    )


async def list_alerts(ctx: ToolContext, args: ListAlertsArgs) -> Answer:
    source: AlertsSource = require(ctx.sources.alerts, "alerts")
    alerts = await source.active_alerts(limit=ctx.limits.max_alerts)
    identity = ctx.limits.identity
    if args.service is not None:
        alerts = [a for a in alerts if _about(a, args.service, identity)]
    items = [_item(a, identity) for a in alerts]
    names = Counter(
        f"{a.labels.get('alertname', '?')}@{identity_of(a.labels, identity).name or '?'}" for a in alerts
    )
    firing = sum(1 for a in alerts if a.status == "firing")
    muted = sum(1 for a in alerts if a.silenced or a.inhibited)
    listed = ", ".join(f"{name} x{count}" for name, count in names.most_common())
    scope = f" for {args.service}" if args.service else ""
    quiet = f", {muted} silenced or inhibited" if muted else ""
    return Answer(
        title=f"Active alerts{scope}",
        summary=f"{len(items)} alerts ({firing} firing{quiet}){scope}: {listed or 'none'}",
        data={"alerts": items, "total": len(items)},
        query={"service": args.service},
        empty=not items,
        truncated=len(alerts) >= ctx.limits.max_alerts,
    )


def _about(alert: Alert, name: str, identity: IdentityLabels) -> bool:
    """The alert is about `name` under any identity label (a bare instance matches with its port)."""
    ident = identity_of(alert.labels, identity)
    values = {v for _, v in (*ident.primary, *ident.qualifiers)}
    # Any label's value names it too (`server_name=nats-2`): the system a question asks about.
    values |= {v for k, v in alert.labels.items() if k not in ("alertname", "severity", "alertstate")}
    instance = ident.instance or ""
    if name in values or name == ident.name or instance.rsplit(":", 1)[0] == name:
        return True
    # A numbered member or a host of it: "the ledger-pg boxes" are `ledger-pg-1:9100`, `ledger-pg-2`.
    hosts = {v.rsplit(":", 1)[0] for v in values if isinstance(v, str)}
    return any(re.fullmatch(rf"{re.escape(name)}-\d{{1,3}}(?:\.[\w.-]+)?", host) for host in hosts)


def _item(alert: Alert, identity: IdentityLabels) -> dict[str, Any]:
    """Every label and annotation, the identity an SRE reads, and Alertmanager's suppression."""
    item: dict[str, Any] = {
        "labels": dict(alert.labels),
        "annotations": dict(alert.annotations),
        "identity": identity_of(alert.labels, identity).text,
        "startsAt": iso(alert.starts_at),
        "endsAt": iso(alert.ends_at),
        "status": alert.status,
    }
    if alert.silenced:
        item["silenced"] = True
        item["silenceComment"] = alert.silence_comment
        item["silencedUntil"] = iso(alert.silenced_until)
    if alert.inhibited:
        item["inhibited"] = True
    return item


def alert_services(data: Mapping[str, Any]) -> Found:
    """The service each listed alert names (blank when none)."""
    return Found(
        services=tuple(service_of(a.get("labels") or {}) or "" for a in mappings(data.get("alerts")))
    )


TOOLS = (
    ToolSpec(
        "list_alerts",
        EvidenceSource.ALERTS,
        ListAlertsArgs,
        "Active alerts (all instances), optionally of one service.",
        list_alerts,
        lane="signals",
        finds=alert_services,
        key_source=True,
    ),
)
