"""The facts of one evidence item, and a small cache of them.

Everything but alert groups is a pure function of one item, `now` and the limits, so a run that
digests its growing evidence list again (the planner, then diagnose) reads each item once: the
cache is keyed by the item object itself. Evidence is immutable once recorded (`Evidence` is
frozen and its data is never edited), which is what makes identity a sound key.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.knowledge import clues_from, passages_from
from tools.digest.labels import clip
from tools.digest.limits import DigestLimits
from tools.digest.logs import patterns_from
from tools.digest.metrics import anomalies_from
from tools.digest.sql import summary_from
from tools.facts import CaseClue, LogPattern, MetricAnomaly, RunbookPassage, SourceGap, SqlSummary

# About six full runs of evidence (at most 40 items each); each entry keeps its item alive.
CACHED_ITEMS = 256


@dataclass(frozen=True, slots=True)
class ItemFacts:
    """What one evidence item contributes to a digest, before ranking across items."""

    anomalies: tuple[MetricAnomaly, ...] = ()
    patterns: tuple[LogPattern, ...] = ()
    sql: SqlSummary | None = None
    runbooks: tuple[RunbookPassage, ...] = ()
    cases: tuple[CaseClue, ...] = ()
    gap: SourceGap | None = None


def digest_item(item: Evidence, *, now: datetime, limits: DigestLimits) -> ItemFacts:
    """The facts of one item (alerts aside: they are grouped across items); pure."""
    if not item.status.succeeded:
        return ItemFacts(gap=_gap(item, limits))
    if item.status is EvidenceStatus.EMPTY:
        return ItemFacts()
    data = item.data
    if item.source is EvidenceSource.METRICS:
        return ItemFacts(anomalies=tuple(anomalies_from(item.id, data, now=now, limits=limits)))
    if item.source is EvidenceSource.LOGS and "lines" in data:
        return ItemFacts(patterns=tuple(patterns_from(item.id, data, now=now, limits=limits)))
    if item.source is EvidenceSource.SQL and ("rows" in data or "tables" in data):
        return ItemFacts(sql=summary_from(item.id, data, limits=limits))
    if item.source is EvidenceSource.KNOWLEDGE:
        return ItemFacts(runbooks=tuple(passages_from(item.id, data, limits=limits)))
    if item.source is EvidenceSource.CASES:
        return ItemFacts(cases=tuple(clues_from(item.id, data, limits=limits)))
    return ItemFacts()


class ItemFactsCache:
    """A bounded, thread-safe LRU of `digest_item` results keyed by item identity, `now` and limits."""

    def __init__(self, size: int = CACHED_ITEMS) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[int, datetime, DigestLimits], tuple[Evidence, ItemFacts]]
        self._entries = OrderedDict()
        self._lock = threading.Lock()

    def facts(self, item: Evidence, *, now: datetime, limits: DigestLimits) -> ItemFacts:
        """The cached facts of `item`, computing them on a miss."""
        key = (id(item), now, limits)
        with self._lock:
            entry = self._entries.get(key)
            # The entry holds its item alive, so no other object can have taken that id meanwhile.
            if entry is not None:
                self._entries.move_to_end(key)
                return entry[1]
        facts = digest_item(item, now=now, limits=limits)
        with self._lock:
            self._entries[key] = (item, facts)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return facts

    def clear(self) -> None:
        """Forget every entry (tests, or to release the evidence the entries keep alive)."""
        with self._lock:
            self._entries.clear()


def _gap(item: Evidence, limits: DigestLimits) -> SourceGap:
    return SourceGap(
        evidence_id=item.id,
        source=item.source.value,
        tool=item.tool,
        status=item.status.value,
        reason=clip(item.summary, limits.summary_chars),
    )
