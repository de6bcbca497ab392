"""The facts of one evidence item, and a small cache of them.

Everything but alert groups is a pure function of an item's data, source and status, `now` and the
limits; the item's id only labels the facts. So the cache is keyed by the data object itself: a
run that digests its growing evidence list again (the planner, then diagnose) reads each item
once, and concurrent runs handed the same cached tool result (`tools.evidence_store.EvidenceCache`)
read it once between them, each getting the facts under its own evidence id. Evidence data is
never edited once recorded, which is what makes identity a sound key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.database import state_from
from tools.digest.knowledge import clues_from, passages_from
from tools.digest.labels import clip, parse_instant
from tools.digest.limits import DigestLimits
from tools.digest.logs import patterns_from
from tools.digest.metrics import SCRAPE_STATUS, Reporter, read_series
from tools.digest.sql import summary_from
from tools.digest.targets import patterns_from_targets
from tools.facts import (
    CaseClue,
    DatabaseState,
    LogPattern,
    MetricAnomaly,
    RunbookPassage,
    SourceGap,
    SqlSummary,
)
from tools.identity_cache import IdentityCache

# About six runs of distinct evidence (at most 40 items each); each entry keeps its data alive.
CACHED_ITEMS = 256
MAX_NAMES_PER_ITEM = 2_000


@dataclass(frozen=True, slots=True)
class ItemFacts:
    """What one evidence item contributes to a digest, before ranking across items."""

    anomalies: tuple[MetricAnomaly, ...] = ()
    patterns: tuple[LogPattern, ...] = ()
    sql: SqlSummary | None = None
    database: DatabaseState | None = None
    runbooks: tuple[RunbookPassage, ...] = ()
    cases: tuple[CaseClue, ...] = ()
    gap: SourceGap | None = None
    # Label values of the series and lines read: the names the evidence knows, fact or no fact.
    names: frozenset[str] = frozenset()
    # Label values of the series read that measure something: a scrape's own status (`up`,
    # `scrape_*`) says only whether the telemetry came, not how the system is.
    measured: frozenset[str] = frozenset()
    # The (system, job) pairs whose series still come in this read.
    reporting: frozenset[Reporter] = frozenset()


def digest_item(item: Evidence, *, now: datetime, limits: DigestLimits) -> ItemFacts:
    """The facts of one item (alerts aside: they are grouped across items); pure."""
    if not item.status.succeeded:
        return ItemFacts(gap=_gap(item, limits))
    if item.status is EvidenceStatus.EMPTY:
        # An empty result set still says which columns its table has (a lookup orders rows by one).
        empty_rows = (
            item.source is EvidenceSource.SQL and "rows" in item.data and "introspection" not in item.data
        )
        return ItemFacts(sql=summary_from(item.id, item.data, limits=limits)) if empty_rows else ItemFacts()
    data = item.data
    if item.source is EvidenceSource.METRICS and "targets" in data:
        return ItemFacts(patterns=tuple(patterns_from_targets(item.id, data, now=now, limits=limits)))
    if item.source is EvidenceSource.METRICS:
        found, reporting = read_series(item.id, data, now=now, limits=limits)
        anomalies = tuple(found)
        series = data.get("series")
        measuring = (
            [r for r in series if isinstance(r, Mapping) and not _scrape_status(r)]
            if isinstance(series, list)
            else []
        )
        return ItemFacts(
            anomalies=anomalies,
            names=_label_values(series),
            measured=_label_values(measuring),
            reporting=reporting,
        )
    if item.source is EvidenceSource.LOGS and "lines" in data:
        read_from, read_to = parse_instant(item.query.get("start")), parse_instant(item.query.get("end"))
        patterns = tuple(
            patterns_from(item.id, data, now=now, limits=limits, read_from=read_from, read_to=read_to)
        )
        return ItemFacts(patterns=patterns, names=_label_values(data.get("lines")))
    if item.source is EvidenceSource.SQL and "introspection" in data:
        return ItemFacts(database=state_from(item.id, data))
    if item.source is EvidenceSource.SQL and ("rows" in data or "tables" in data):
        return ItemFacts(sql=summary_from(item.id, data, limits=limits))
    if item.source is EvidenceSource.KNOWLEDGE:
        return ItemFacts(runbooks=tuple(passages_from(item.id, data, limits=limits)))
    if item.source is EvidenceSource.CASES:
        return ItemFacts(cases=tuple(clues_from(item.id, data, limits=limits)))
    return ItemFacts()


class ItemFactsCache:
    """`digest_item` results keyed by data identity, source, status, `now` and limits."""

    def __init__(self, size: int = CACHED_ITEMS) -> None:
        self._cache: IdentityCache[ItemFacts] = IdentityCache(size)

    def facts(self, item: Evidence, *, now: datetime, limits: DigestLimits) -> ItemFacts:
        """The facts of `item` under its own id, computing them on a miss."""
        if not item.status.succeeded:
            return digest_item(item, now=now, limits=limits)  # a gap: cheap, and names the item's tool
        key = (id(item.data), item.source, item.status, now, limits)
        facts, cached = self._cache.get_or_compute(
            key, item.data, lambda: digest_item(item, now=now, limits=limits)
        )
        return _labelled(facts, item.id) if cached else facts

    def clear(self) -> None:
        """Forget every entry (tests, or to release the evidence the entries keep alive)."""
        self._cache.clear()


def _labelled(facts: ItemFacts, evidence_id: str) -> ItemFacts:
    """`facts` citing `evidence_id` (the same object when they already do)."""
    cited: list[MetricAnomaly | LogPattern | RunbookPassage | CaseClue | SqlSummary | DatabaseState]
    cited = [*facts.anomalies, *facts.patterns, *facts.runbooks, *facts.cases]
    if facts.sql is not None:
        cited.append(facts.sql)
    if facts.database is not None:
        cited.append(facts.database)
    if all(fact.evidence_id == evidence_id for fact in cited):
        return facts
    return ItemFacts(
        anomalies=tuple(replace(a, evidence_id=evidence_id) for a in facts.anomalies),
        patterns=tuple(replace(p, evidence_id=evidence_id) for p in facts.patterns),
        sql=None if facts.sql is None else replace(facts.sql, evidence_id=evidence_id),
        database=None if facts.database is None else replace(facts.database, evidence_id=evidence_id),
        runbooks=tuple(replace(r, evidence_id=evidence_id) for r in facts.runbooks),
        cases=tuple(replace(c, evidence_id=evidence_id) for c in facts.cases),
        names=facts.names,
        measured=facts.measured,
        reporting=facts.reporting,
    )


def _scrape_status(record: Mapping[str, Any]) -> bool:
    labels = record.get("labels")
    name = record.get("metric") or (labels.get("__name__") if isinstance(labels, Mapping) else None)
    return bool(SCRAPE_STATUS.match(str(name or "")))


def _label_values(records: object) -> frozenset[str]:
    """Every label value of a result's series or lines, record by record until MAX_NAMES_PER_ITEM are held."""
    names: set[str] = set()
    for record in records if isinstance(records, list) else []:
        labels = record.get("labels") if isinstance(record, Mapping) else None
        if isinstance(labels, Mapping):
            names.update(str(value) for value in labels.values())
        if len(names) >= MAX_NAMES_PER_ITEM:
            break
    return frozenset(names)


def _gap(item: Evidence, limits: DigestLimits) -> SourceGap:
    return SourceGap(
        evidence_id=item.id,
        source=item.source.value,
        tool=item.tool,
        status=item.status.value,
        reason=clip(item.summary, limits.summary_chars),
    )
