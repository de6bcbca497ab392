"""Handlers of metric discovery and search: names, metadata and firing alerts' rules, never series.

Every request is bounded by what it asks, not by the TSDB's size: the rules (as many as are
configured), metric names from the label-value index (as many as there are names), names under
at most MAX_IMPLICATED implicated identities, values of a few identity labels, and the metadata of
at most `max_reads` chosen families. `/api/v1/series` is never read.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field

from tools.base import MetricMetadata, MetricsCatalog, MetricsSource, Rule, SourceError, TimeWindow
from tools.identity import INSTANCE_LABEL, IdentityLabels, identity_of, matcher, selectors_for_name
from tools.prometheus.discovery import (
    KEY_METRICS,
    MAX_READS,
    AlertLink,
    Candidate,
    MonitoringStack,
    choose,
    family_of,
    kind_of,
    narrowed,
    question_words,
    read_promql,
)
from tools.prometheus.expression import selectors_in
from tools.toolbox.args import Name, ToolArgs, Window, mappings, text_labels
from tools.toolbox.spec import Answer, Found, ToolContext, duration, rejected, require, window_query

# Names a discovery may hold in memory: the index of a large Prometheus has a few thousand.
MAX_NAMES = 50_000
_RATED = frozenset({"counter", "histogram"})  # the kinds read through rate() over a range
MAX_LINKS = 10
MAX_IMPLICATED = 3
# Identity labels (of those the TSDB has) whose values name systems cheaply (one index lookup
# each); instance and pod values grow with the fleet, so they are read only through alerts.
_IDENTITY_VALUE_LABELS = 4
_PER_FLEET = frozenset({INSTANCE_LABEL, "pod", "container", "namespace"})
_PATTERN = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_:.*+?|()\[\]^$-]+$")]


class ListMetricsArgs(ToolArgs):
    question: str | None = Field(
        default=None, max_length=500, description="the question; its words pick metric names"
    )
    service: Name | None = Field(default=None, description="a system's name under any identity label")
    window_minutes: Window | None = None


class SearchMetricsArgs(ToolArgs):
    pattern: _PATTERN = Field(description="an RE2 pattern the whole metric name must match")
    window_minutes: Window | None = None


def catalog_of(ctx: ToolContext) -> MetricsCatalog:
    """The metrics source's catalog (names, metadata, rules, targets), or an UNAVAILABLE refusal."""
    source: MetricsSource = require(ctx.sources.metrics, "metrics")
    if not isinstance(source, MetricsCatalog):
        raise SourceError("the metrics backend serves no metric catalog")
    return source


def stack_of(ctx: ToolContext) -> MonitoringStack:
    return MonitoringStack(tuple(ctx.limits.monitoring_jobs))


async def list_metrics(ctx: ToolContext, args: ListMetricsArgs) -> Answer:
    catalog, window, identity = catalog_of(ctx), ctx.window(args.window_minutes), ctx.limits.identity
    stack, limit = stack_of(ctx), ctx.limits.max_discovery_items
    question = " ".join(filter(None, [args.question, args.service]))
    words = question_words(question)
    keep_stack = stack.asked_about(words)
    links = alert_links(await _rules(catalog, ctx.limits.max_alerts))
    names = await _names(catalog, words, links, window)
    present = await _present_labels(catalog, window)
    identities = await _identity_values(catalog, identity, present, window, limit)
    if not keep_stack:
        identities = {k: [v for v in vs if v not in stack.jobs] for k, vs in identities.items()}
    # A system the question names by its identity ("why is checkout returning 500s?").
    named = [(label, v) for label, values in identities.items() for v in values if v.lower() in words]
    systems = await _implicated(catalog, links, args.service, named, window, identity)
    candidates = choose(
        names, question=question, links=links, implicated=sorted(systems), stack=stack, identity=identity
    )
    candidates = narrowed(candidates, systems)
    reads = await _reads(catalog, candidates, _narrowed(identity, present), None if keep_stack else stack)
    # Leaving the stack's own names out is not truncation; only the item cap (or the name cap) is.
    allowed = [name for name in names if keep_stack or not stack.owns(name)]
    listed = allowed[:limit]
    summary = "; ".join(f"{r['metric']} as {r['kind']} ({r['reason']})" for r in reads)
    return Answer(
        title="Metrics to read",
        summary=f"{len(names)} metric names, {len(reads)} chosen: {summary}",
        data={"reads": reads, "names": listed, "identities": identities},
        query={"question": args.question, "service": args.service, **window_query(window)},
        empty=not names,
        truncated=len(allowed) > limit or len(names) >= MAX_NAMES,
    )


async def search_metrics(ctx: ToolContext, args: SearchMetricsArgs) -> Answer:
    """Names matching a pattern (asked of the name index), with the metadata of the first few."""
    try:
        re.compile(args.pattern)
    except re.error as error:
        raise rejected("pattern is not a valid regular expression") from error
    catalog, window = catalog_of(ctx), ctx.window(args.window_minutes)
    limit = ctx.limits.max_discovery_items
    match = [f'{{__name__=~"{args.pattern}"}}']
    names = await catalog.metric_names(match=match, window=window, limit=limit + 1)
    shown = names[:limit]
    metas = await asyncio.gather(*(_family_metadata(catalog, n) for n in shown[:MAX_READS]))
    items: list[dict[str, Any]] = [{"metric": name} for name in shown]
    for item, meta in zip(items, metas, strict=False):
        item.update(_meta_fields(str(item["metric"]), meta))
    return Answer(
        title=f"Metrics matching {args.pattern}",
        summary=f"{len(shown)} metrics: {', '.join(shown[:20])}",
        data={"metrics": items},
        query={"pattern": args.pattern, **window_query(window)},
        empty=not shown,
        truncated=len(names) > limit,
    )


def alert_links(rules: Sequence[Rule]) -> list[AlertLink]:
    """Each firing alert with the selectors of its rule's expression."""
    links: list[AlertLink] = []
    for rule in rules:
        firing = [alert for alert in rule.alerts if alert.status == "firing"]
        if rule.kind != "alerting" or not firing:
            continue
        selectors = tuple(selectors_in(rule.expr))
        links += [AlertLink(rule.name, dict(alert.labels), selectors) for alert in firing]
    return links[:MAX_LINKS]


def found_reads(data: Any) -> Found:
    """The names and typed reads a discovery answer holds, and the identities it saw."""
    reads = mappings(data.get("reads"))
    metrics = [(str(r.get("metric", "")), text_labels(r.get("matchers"))) for r in reads]
    metrics += [(str(name), {}) for name in data.get("names") or [] if isinstance(name, str)]
    identities = data.get("identities") or {}
    services = [str(v) for values in identities.values() if isinstance(values, list) for v in values]
    keys = ("metric", "kind", "matchers", "rate_seconds", "filters", "reason", "promql")
    read_args = tuple({k: r[k] for k in keys if k in r} for r in reads if r.get("metric"))
    return Found(metrics=tuple(metrics), services=tuple(services), reads=read_args)


async def _names(
    catalog: MetricsCatalog, words: Sequence[str], links: Sequence[AlertLink], window: TimeWindow
) -> list[str]:
    """Every metric name of the window; when even the name index is past the byte cap (tens of
    thousands of names), only the names the question's words, the alerts and the key signals spell."""
    try:
        return await catalog.metric_names(match=[], window=window, limit=MAX_NAMES)
    except SourceError:
        # Words are [a-z0-9]+ and metric names identifiers: nothing in them needs escaping.
        spelled = [*words, *(sel.metric for link in links for sel in link.selectors if sel.metric)]
        pattern = "|".join([*(f".*{word}.*" for word in spelled), *sorted(KEY_METRICS)])
        return await catalog.metric_names(
            match=[f'{{__name__=~"{pattern}"}}'], window=window, limit=MAX_NAMES
        )


async def _rules(catalog: MetricsCatalog, limit: int) -> list[Rule]:
    # A backend without a rules API (or an unreadable one) still lets names be discovered.
    try:
        return await catalog.rules(limit=limit)
    except SourceError:
        return []


async def _implicated(
    catalog: MetricsCatalog,
    links: Sequence[AlertLink],
    service: str | None,
    named: Sequence[tuple[str, str]],
    window: TimeWindow,
    identity: IdentityLabels,
) -> dict[str, dict[str, str]]:
    """Names scraped from the systems the alerts, the question or its service name implicate, each
    with the matchers of the first system it was found under (what narrows its read)."""
    # One system per instance: alerts on the same instance (one keeps `job`, one aggregated it
    # away) name the same names.
    systems: dict[str, dict[str, str]] = {}
    for link in links:
        found = identity_of(link.labels, identity)
        pairs = [*found.primary, *((k, v) for k, v in found.qualifiers if k == INSTANCE_LABEL)]
        if pairs:
            systems.setdefault(found.instance or str(pairs), dict(pairs))
    for label, value in named:
        systems.setdefault(f"{label}={value}", {label: value})
    names: dict[str, dict[str, str]] = {}
    for system in list(systems.values())[:MAX_IMPLICATED]:
        selector = "{" + ",".join(matcher(k, v) for k, v in system.items()) + "}"
        for name in await catalog.metric_names(match=[selector], window=window, limit=MAX_NAMES):
            names.setdefault(name, system)
    if service:
        # Alternatives under any identity label: no one matcher narrows their reads.
        alternatives = list(selectors_for_name(service, identity))
        for name in await catalog.metric_names(match=alternatives, window=window, limit=MAX_NAMES):
            names.setdefault(name, {})
    return names


async def _reads(
    catalog: MetricsCatalog,
    candidates: Sequence[Candidate],
    identity: IdentityLabels,
    stack: MonitoringStack | None,
) -> list[dict[str, Any]]:
    metas = await asyncio.gather(*(_family_metadata(catalog, c.metric) for c in candidates))
    reads = []
    for candidate, meta in zip(candidates, metas, strict=True):
        kind = kind_of(candidate.metric, meta)
        # An alert's metric is read over its rule's own range: the move the rule fired on.
        rate_window = duration(candidate.rate_s) if candidate.rate_s else "5m"
        promql = read_promql(candidate, kind, rate_window=rate_window, stack=stack, identity=identity)
        # The rule's range and its other matchers, when it has them: what the rule itself evaluated.
        rule: dict[str, Any] = {"filters": list(candidate.filters)} if candidate.filters else {}
        if candidate.rate_s and kind in _RATED:
            rule["rate_seconds"] = candidate.rate_s
        reads.append(
            {
                "metric": candidate.metric,
                "kind": kind,
                "reason": candidate.reason,
                "matchers": dict(candidate.matchers),
                **rule,
                "promql": promql,
                **_meta_fields(candidate.metric, meta),
            }
        )
    return reads


async def _family_metadata(catalog: MetricsCatalog, metric: str) -> MetricMetadata | None:
    """The family's metadata; a gauge named `..._count` (pg_locks_count) is its own family."""
    family = family_of(metric)
    found = await _metadata(catalog, family)
    if found is None and family != metric:
        found = await _metadata(catalog, metric)
    return found


async def _metadata(catalog: MetricsCatalog, family: str) -> MetricMetadata | None:
    try:
        return await catalog.metadata(metric=family)
    except SourceError:
        return None


def _meta_fields(metric: str, meta: MetricMetadata | None) -> dict[str, str]:
    if meta is None:
        return {"type": kind_of(metric, None), "help": "", "unit": ""}
    return {"type": meta.type, "help": meta.help[:200], "unit": meta.unit}


async def _present_labels(catalog: MetricsCatalog, window: TimeWindow) -> set[str] | None:
    """The label names of the window (None when the backend cannot say)."""
    try:
        return set(await catalog.label_names(window=window, limit=MAX_NAMES))
    except SourceError:
        return None


def _narrowed(identity: IdentityLabels, present: set[str] | None) -> IdentityLabels:
    """The identity labels the TSDB has: a read groups `by` those, not by the whole list."""
    if present is None:
        return identity
    labels = tuple(label for label in identity.labels if label in present)
    return IdentityLabels(labels or identity.labels, tuple(r for r in identity.resources if r in present))


async def _identity_values(
    catalog: MetricsCatalog,
    identity: IdentityLabels,
    present: set[str] | None,
    window: TimeWindow,
    limit: int,
) -> dict[str, list[str]]:
    if present is None:
        return {}
    named = [label for label in identity.name_labels if label not in _PER_FLEET and label in present]
    labels = named[:_IDENTITY_VALUE_LABELS]
    values: dict[str, list[str]] = {}
    for label in labels:
        try:
            found = await catalog.label_values(label=label, window=window, limit=limit)
        except SourceError:
            continue
        if found:
            values[label] = found
    return values
