"""Alertmanager's tools: the active alerts, declared once with their lane and discovery role."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from tools.base import AlertsSource, EvidenceSource
from tools.digest.labels import service_of
from tools.toolbox.args import Name, ToolArgs, mappings
from tools.toolbox.spec import Answer, Found, ToolContext, ToolSpec, iso, require


class ListAlertsArgs(ToolArgs):
    service: Name | None = Field(default=None, description="only alerts with this service label")


async def list_alerts(ctx: ToolContext, args: ListAlertsArgs) -> Answer:
    source: AlertsSource = require(ctx.sources.alerts, "alerts")
    alerts = await source.active_alerts(limit=ctx.limits.max_alerts)
    if args.service is not None:
        alerts = [a for a in alerts if a.labels.get("service") == args.service]
    items = [
        {
            "labels": dict(a.labels),
            "annotations": dict(a.annotations),
            "startsAt": iso(a.starts_at),
            "endsAt": iso(a.ends_at),
            "status": a.status,
        }
        for a in alerts
    ]
    names = Counter(f"{a.labels.get('alertname', '?')}@{a.labels.get('service', '?')}" for a in alerts)
    firing = sum(1 for a in alerts if a.status == "firing")
    listed = ", ".join(f"{name} x{count}" for name, count in names.most_common())
    scope = f" for service {args.service}" if args.service else ""
    return Answer(
        title=f"Active alerts{scope}",
        summary=f"{len(items)} alerts ({firing} firing){scope}: {listed or 'none'}",
        data={"alerts": items, "total": len(items)},
        query={"service": args.service},
        empty=not items,
        truncated=len(alerts) >= ctx.limits.max_alerts,
    )


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
        "List active alerts (all instances), optionally only those of one service.",
        list_alerts,
        lane="signals",
        finds=alert_services,
        key_source=True,
    ),
)
