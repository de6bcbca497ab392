"""The searchable text of each evidence item: summary, data, query, digest facts and readable timestamps.

A finding's claims are looked up in this text, so facts derived from the data (baseline, peak, counts)
and ISO forms of unix timestamps count as present in the evidence they came from. The part read from
the item itself is cached per item (`item_text`); only the digest facts are added on every pass.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from graph.nodes.evidence_guard.item_text import ENTITY_KEYS, ItemTextCache, dump, iso_forms, numbers_in
from tools.base import Evidence, EvidenceSource
from tools.facts import Digest

__all__ = ["ENTITY_KEYS", "EvidenceText", "build_corpus", "run_entities", "runbook_names"]

# Shared by every run: guard passes of one run, and runs served the same tool results, read an item once.
_ITEM_TEXT = ItemTextCache()


@dataclass(frozen=True, slots=True)
class EvidenceText:
    """One evidence item as the guard sees it."""

    id: str
    source: str
    succeeded: bool
    text: str  # lower-cased
    numbers: tuple[float, ...]  # sorted, for `number_present`


def build_corpus(
    items: Sequence[Evidence], digest: Digest, *, only: Collection[str] | None = None
) -> dict[str, EvidenceText]:
    """Evidence id -> searchable text, including the digest facts derived from that item.

    Items outside `only` keep their id and status (citations are checked against them) but get no
    text: reading every item's data would cost more than the check is worth.
    """
    facts = _facts_by_evidence(digest, only)
    corpus: dict[str, EvidenceText] = {}
    for item in items:
        if only is not None and item.id not in only:
            corpus[item.id] = EvidenceText(item.id, item.source.value, item.status.succeeded, "", ())
            continue
        read = _ITEM_TEXT.read(item)
        known = read.stamped()
        fact_text = "\n".join(dump(fact) for fact in facts.get(item.id, []))
        fact_numbers = numbers_in(fact_text)
        stamps, stamp_numbers = known.stamps, known.stamp_numbers
        if more := iso_forms(fact_numbers) - known.iso_forms:
            stamps = " ".join(sorted(known.iso_forms | more))
            stamp_numbers = numbers_in(stamps)
        parts = [read.text(), fact_text] if fact_text else [read.text()]
        corpus[item.id] = EvidenceText(
            id=item.id,
            source=item.source.value,
            succeeded=item.status.succeeded,
            text="\n".join([*parts, stamps]).lower(),
            numbers=tuple(sorted(known.numbers + fact_numbers + stamp_numbers)),
        )
    return corpus


def run_entities(items: Iterable[Evidence]) -> set[str]:
    """Service, host and instance names seen anywhere in this run's evidence (lower-cased)."""
    names: set[str] = set()
    for item in items:
        names |= _ITEM_TEXT.read(item).entities
    return {name for name in names if len(name) >= 4 or not name.isalpha()}


def runbook_names(items: Iterable[Evidence]) -> str:
    """The text of all knowledge evidence, where recommendation runbooks must be found."""
    return "\n".join(
        (read.data + read.title).lower()
        for read in (
            _ITEM_TEXT.read(item)
            for item in items
            if item.source is EvidenceSource.KNOWLEDGE and item.status.succeeded
        )
    )


def _facts_by_evidence(digest: Digest, only: Collection[str] | None) -> dict[str, list[Any]]:
    grouped: dict[str, list[Any]] = {}
    for facts in (
        digest.anomalies,
        digest.log_patterns,
        digest.alert_groups,
        digest.sql,
        digest.runbooks,
        digest.cases,
    ):
        for fact in facts:
            if only is not None and fact.evidence_id not in only:
                continue
            grouped.setdefault(fact.evidence_id, []).append(_shallow(fact))
    return grouped


def _shallow(fact: Any) -> dict[str, Any]:
    # The JSON text of a fact is all the guard needs: no deep copy (dataclasses.asdict) per pass.
    return {field.name: getattr(fact, field.name) for field in fields(fact)}
