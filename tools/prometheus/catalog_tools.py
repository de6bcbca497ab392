"""Tools an SRE reaches for next to PromQL: the alerting and recording rules, and the scrape targets
with their health. Both answers grow with the configuration (rules, targets), never with the TSDB."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from tools.base import EvidenceSource, Rule, ScrapeTarget
from tools.prometheus.metric_discovery import catalog_of
from tools.toolbox.args import Name, ToolArgs
from tools.toolbox.spec import Answer, ToolContext, ToolSpec, iso

_SUMMARY_ITEMS = 8
_EXPR_CHARS = 500


class ListRulesArgs(ToolArgs):
    kind: Literal["alerting", "recording"] | None = Field(default=None, description="only this kind")
    firing_only: bool = Field(default=False, description="only alerting rules with a firing alert")


class ListTargetsArgs(ToolArgs):
    health: Literal["up", "down", "unknown"] | None = Field(default=None, description="only this health")
    job: Name | None = Field(default=None, description="only this scrape job")


async def list_rules(ctx: ToolContext, args: ListRulesArgs) -> Answer:
    limit = ctx.limits.max_discovery_items
    rules = await catalog_of(ctx).rules(limit=limit + 1)
    kept = [rule for rule in rules[:limit] if _keeps_rule(rule, args)]
    items = [_rule_item(rule, ctx.limits.max_alerts) for rule in kept]
    firing = [r for r in kept if any(a.status == "firing" for a in r.alerts)]
    shown = ", ".join(f"{r.name}: {r.expr[:120]}" for r in (firing or kept)[:_SUMMARY_ITEMS])
    return Answer(
        title="Alerting and recording rules",
        summary=f"{len(kept)} rules, {len(firing)} firing; {shown}",
        data={"rules": items},
        query=args.model_dump(exclude_none=True),
        empty=not kept,
        truncated=len(rules) > limit,
    )


async def list_targets(ctx: ToolContext, args: ListTargetsArgs) -> Answer:
    limit = ctx.limits.max_discovery_items
    targets = await catalog_of(ctx).targets(limit=limit + 1)
    kept = [t for t in targets[:limit] if _keeps_target(t, args)]
    down = [t for t in kept if t.health != "up"]
    shown = ", ".join(f"{_name(t)} {t.health}" for t in (down or kept)[:_SUMMARY_ITEMS])
    return Answer(
        title="Scrape targets",
        summary=f"{len(kept)} targets, {len(down)} not up; {shown}",
        data={"targets": [_target_item(t) for t in kept]},
        query=args.model_dump(exclude_none=True),
        empty=not kept,
        truncated=len(targets) > limit,
    )


def _keeps_rule(rule: Rule, args: ListRulesArgs) -> bool:
    if args.kind is not None and rule.kind != args.kind:
        return False
    return not args.firing_only or any(alert.status == "firing" for alert in rule.alerts)


def _keeps_target(target: ScrapeTarget, args: ListTargetsArgs) -> bool:
    if args.health is not None and target.health != args.health:
        return False
    return args.job is None or target.labels.get("job") == args.job


def _rule_item(rule: Rule, max_alerts: int) -> dict[str, Any]:
    return {
        "name": rule.name,
        "kind": rule.kind,
        "expr": rule.expr[:_EXPR_CHARS],
        "group": rule.group,
        "health": rule.health,
        "labels": dict(rule.labels),
        "alerts": [
            {"labels": dict(a.labels), "state": a.status, "active_at": iso(a.starts_at)}
            for a in rule.alerts[:max_alerts]
        ],
    }


def _target_item(target: ScrapeTarget) -> dict[str, Any]:
    return {
        "labels": dict(target.labels),
        "health": target.health,
        "scrape_url": target.scrape_url,
        "last_error": target.last_error[:200],
        "last_scrape": iso(target.last_scrape),
    }


def _name(target: ScrapeTarget) -> str:
    return f"{target.labels.get('job', '?')}/{target.labels.get('instance', '?')}"


TOOLS = (
    ToolSpec(
        "list_rules",
        EvidenceSource.METRICS,
        ListRulesArgs,
        "Alerting and recording rules with their PromQL and the alerts firing now.",
        list_rules,
        lane="signals",
    ),
    ToolSpec(
        "list_targets",
        EvidenceSource.METRICS,
        ListTargetsArgs,
        "Scrape targets with health (up, down), last error and last scrape.",
        list_targets,
        lane="signals",
    ),
)
