"""`build_digest`: every evidence item of a run, turned into bounded, ranked, citable facts.

Each item is read by the shape of its data under its source (range series, log lines, alerts, rows,
passages, cases); discovery results carry no facts. Items that could not answer become gaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.alerts import AlertGrouper
from tools.digest.knowledge import clues_from, passages_from
from tools.digest.labels import clip
from tools.digest.limits import DigestLimits
from tools.digest.logs import patterns_from, rank_patterns
from tools.digest.metrics import anomalies_from, rank_anomalies
from tools.digest.sql import summary_from
from tools.facts import Digest, LogPattern, MetricAnomaly, RunbookPassage, SourceGap


def build_digest(
    evidence: Sequence[Evidence], *, now: datetime, limits: DigestLimits | None = None
) -> Digest:
    """The digest of `evidence` as seen at `now`; pure and deterministic for the same input."""
    bounds = limits or DigestLimits()
    digest = Digest()
    anomalies: list[MetricAnomaly] = []
    patterns: list[LogPattern] = []
    alerts = AlertGrouper(bounds)
    for item in evidence:
        if not item.status.succeeded:
            digest.gaps.append(_gap(item, bounds))
            continue
        if item.status is EvidenceStatus.EMPTY:
            continue
        data = item.data
        if item.source is EvidenceSource.METRICS:
            anomalies.extend(anomalies_from(item.id, data, now=now, limits=bounds))
        elif item.source is EvidenceSource.LOGS and "lines" in data:
            patterns.extend(patterns_from(item.id, data, now=now, limits=bounds))
        elif item.source is EvidenceSource.ALERTS:
            alerts.add(item.id, data)
        elif item.source is EvidenceSource.SQL and ("rows" in data or "tables" in data):
            digest.sql.append(summary_from(item.id, data, limits=bounds))
        elif item.source is EvidenceSource.KNOWLEDGE:
            digest.runbooks.extend(passages_from(item.id, data, limits=bounds))
        elif item.source is EvidenceSource.CASES:
            digest.cases.extend(clues_from(item.id, data, limits=bounds))
    digest.anomalies = rank_anomalies(
        _unique_anomalies(anomalies),
        limit=bounds.max_anomalies,
        per_metric_service=bounds.max_anomalies_per_metric_service,
    )
    digest.log_patterns = rank_patterns(_unique_patterns(patterns), bounds.max_log_patterns)
    digest.alert_groups = alerts.groups()
    digest.sql = digest.sql[: bounds.max_sql]
    digest.runbooks = _unique_passages(digest.runbooks)[: bounds.max_runbooks]
    digest.cases = sorted(digest.cases, key=lambda c: (-c.score, c.case_id))[: bounds.max_cases]
    digest.gaps = digest.gaps[: bounds.max_gaps]
    return digest


def _gap(item: Evidence, limits: DigestLimits) -> SourceGap:
    return SourceGap(
        evidence_id=item.id,
        source=item.source.value,
        tool=item.tool,
        status=item.status.value,
        reason=clip(item.summary, limits.summary_chars),
    )


def _unique_anomalies(anomalies: Sequence[MetricAnomaly]) -> list[MetricAnomaly]:
    """One fact per series: two queries returning the same series keep the stronger reading."""
    best: dict[tuple[str, tuple[tuple[str, str], ...]], MetricAnomaly] = {}
    for anomaly in anomalies:
        key = (anomaly.metric, tuple(sorted(anomaly.labels.items())))
        if key not in best or anomaly.score > best[key].score:
            best[key] = anomaly
    return list(best.values())


def _unique_patterns(patterns: Sequence[LogPattern]) -> list[LogPattern]:
    """One fact per (service, level, template): overlapping log queries keep the larger count."""
    best: dict[tuple[str | None, str | None, str], LogPattern] = {}
    for pattern in patterns:
        key = (pattern.service, pattern.level, pattern.template)
        if key not in best or pattern.count > best[key].count:
            best[key] = pattern
    return list(best.values())


def _unique_passages(passages: Sequence[RunbookPassage]) -> list[RunbookPassage]:
    """Best first, one fact per (file, heading) even when several searches found it."""
    seen: set[tuple[str, str]] = set()
    kept: list[RunbookPassage] = []
    for passage in sorted(passages, key=lambda p: (-p.score, p.file, p.heading)):
        if (passage.file, passage.heading) not in seen:
            seen.add((passage.file, passage.heading))
            kept.append(passage)
    return kept
