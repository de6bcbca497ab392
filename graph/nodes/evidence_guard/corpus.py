"""The searchable text of each evidence item: summary, data, query, digest facts and readable timestamps.

A finding's claims are looked up in this text, so facts derived from the data (baseline, peak, counts)
and ISO forms of unix timestamps count as present in the evidence they came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from tools.base import Evidence, EvidenceSource
from tools.facts import Digest

_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
# Unix seconds between 2001 and 2100: rendered as ISO so "14:02" claims can be checked.
_UNIX_RANGE = (1_000_000_000, 4_102_444_800)
ENTITY_KEYS = frozenset(
    {
        "service",
        "app",
        "job",
        "instance",
        "host",
        "hostname",
        "pod",
        "container",
        "node",
        "deployment",
    }
)


@dataclass(frozen=True, slots=True)
class EvidenceText:
    """One evidence item as the guard sees it."""

    id: str
    source: str
    succeeded: bool
    text: str  # lower-cased
    numbers: tuple[float, ...]


def build_corpus(
    items: Sequence[Evidence], digest: Digest, *, only: Collection[str] | None = None
) -> dict[str, EvidenceText]:
    """Evidence id -> searchable text, including the digest facts derived from that item.

    Items outside `only` keep their id and status (citations are checked against them) but get no
    text: reading every item's data would cost more than the check is worth.
    """
    facts = _facts_by_evidence(digest)
    corpus: dict[str, EvidenceText] = {}
    for item in items:
        if only is not None and item.id not in only:
            corpus[item.id] = EvidenceText(item.id, item.source.value, item.status.succeeded, "", ())
            continue
        parts = [item.title, item.summary, _dump(item.data), _dump(item.query)]
        parts += [_dump(fact) for fact in facts.get(item.id, [])]
        text = "\n".join(parts)
        text += "\n" + " ".join(_iso_forms(text))
        corpus[item.id] = EvidenceText(
            id=item.id,
            source=item.source.value,
            succeeded=item.status.succeeded,
            text=text.lower(),
            numbers=tuple(float(match) for match in _NUMBER.findall(text)),
        )
    return corpus


def run_entities(items: Iterable[Evidence]) -> set[str]:
    """Service, host and instance names seen anywhere in this run's evidence (lower-cased)."""
    names: set[str] = set()
    for item in items:
        _collect_entities(item.data, names)
    return {name for name in names if len(name) >= 4 or not name.isalpha()}


def runbook_names(items: Iterable[Evidence]) -> str:
    """The text of all knowledge evidence, where recommendation runbooks must be found."""
    return "\n".join(
        (_dump(item.data) + item.title).lower()
        for item in items
        if item.source is EvidenceSource.KNOWLEDGE and item.status.succeeded
    )


def _collect_entities(value: Any, names: set[str]) -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if key in ENTITY_KEYS and isinstance(inner, str) and inner:
                names.add(inner.lower())
            else:
                _collect_entities(inner, names)
    elif isinstance(value, list | tuple):
        for inner in value:
            _collect_entities(inner, names)


def _facts_by_evidence(digest: Digest) -> dict[str, list[Any]]:
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
            grouped.setdefault(fact.evidence_id, []).append(asdict(fact))
    return grouped


def _iso_forms(text: str) -> list[str]:
    forms: set[str] = set()
    for match in _NUMBER.findall(text):
        value = float(match)
        if _UNIX_RANGE[0] <= value <= _UNIX_RANGE[1]:
            forms.add(datetime.fromtimestamp(value, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    return sorted(forms)


def _dump(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)
