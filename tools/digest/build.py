"""`build_digest`: every evidence item of a run, turned into bounded, ranked, citable facts.

Each item is read by the shape of its data under its source (range series, log lines, alerts, rows,
passages, cases); discovery results carry no facts. Items that could not answer become gaps. Per-item
facts are cached by item (see `tools.digest.item`); only the ranking across items runs every call.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.alert_reads import alert_read_moves
from tools.digest.alerts import AlertGrouper
from tools.digest.item import ItemFactsCache
from tools.digest.limits import DigestLimits
from tools.digest.logs import rank_patterns
from tools.digest.metrics import Reporter, rank_anomalies, replaced_silences
from tools.digest.rhythm import earlier_read, split_routine
from tools.facts import Digest, LogPattern, MetricAnomaly, RunbookPassage

# Per-item facts survive between calls: a run digests its growing evidence list more than once.
_ITEM_FACTS = ItemFactsCache()


def build_digest(
    evidence: Sequence[Evidence], *, now: datetime, limits: DigestLimits | None = None
) -> Digest:
    """The digest of `evidence` as seen at `now`; pure and deterministic for the same input."""
    bounds = limits or DigestLimits()
    digest = Digest()
    anomalies: list[MetricAnomaly] = []
    patterns: list[LogPattern] = []
    alerts = AlertGrouper(bounds)
    histories: list[Evidence] = []
    earlier: list[Evidence] = []
    present: list[Evidence] = []
    reporting: set[Reporter] = set()
    for item in evidence:
        facts = _ITEM_FACTS.facts(item, now=now, limits=bounds)
        if facts.gap is not None:
            digest.gaps.append(facts.gap)
        if earlier_read(item):
            earlier.append(item)  # a read of days past: compared with today's moves, not scanned
        else:
            present.append(item)
            anomalies.extend(facts.anomalies)
            reporting.update(facts.reporting)
        patterns.extend(facts.patterns)
        if facts.sql is not None:
            digest.sql.append(facts.sql)
        if facts.database is not None:
            digest.databases.append(facts.database)
        digest.names.update(facts.names)
        digest.measured.update(facts.measured)
        digest.runbooks.extend(facts.runbooks)
        digest.cases.extend(facts.cases)
        if item.status is EvidenceStatus.OK and item.source is EvidenceSource.ALERTS:
            alerts.add(item.id, item.data)
        elif item.status is EvidenceStatus.OK and "history" in item.data:
            histories.append(item)
    # Histories after every list: what the lists show now decides whether an alert still fires.
    for item in histories:
        alerts.add_history(item.id, item.data)
    # A firing alert's own metrics moved in a series too short to scan: a fact about its system.
    anomalies = replaced_silences(_unique_anomalies(anomalies), reporting)
    anomalies += alert_read_moves(present, anomalies, limits=bounds)
    anomalies, digest.routine = split_routine(anomalies, earlier, now=now)
    digest.anomalies = rank_anomalies(
        anomalies,
        limit=bounds.max_anomalies,
        per_metric_service=bounds.max_anomalies_per_metric_service,
    )
    digest.log_patterns = rank_patterns(_unique_patterns(patterns), bounds.max_log_patterns)
    digest.alert_groups = alerts.groups()
    digest.sql = digest.sql[: bounds.max_sql]
    digest.databases = digest.databases[: bounds.max_sql]
    digest.runbooks = _unique_passages(digest.runbooks)[: bounds.max_runbooks]
    digest.cases = sorted(digest.cases, key=lambda c: (-c.score, c.case_id))[: bounds.max_cases]
    digest.gaps = digest.gaps[: bounds.max_gaps]
    return digest


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
