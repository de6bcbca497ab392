"""Which listed alerts a lookup shows: those whose labels hold the pairs the question spells ("for team
blue", "critical alerts", a platform state such as CrashLoopBackOff), and those placed where the question
says ("firing in prod": label values holding prod as part of a name). The filter is recorded in the
query the table shows."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tools.base import Evidence
from tools.toolbox.args import mappings, text_labels


def alerts_labelled(item: Evidence, question: str) -> Evidence:
    """An alert list narrowed to the alerts whose labels hold every pair the question spells, the
    pairs read from the alerts themselves: a label and its value ("team blue", "severity=critical"),
    or a value before "alerts" ("critical alerts"). Recorded in its query as `labels_asked`."""
    if item.tool not in ("list_alerts", "alert_history") or not question:
        return item
    key = "alerts" if item.tool == "list_alerts" else "history"
    alerts = mappings(item.data.get(key))
    pairs: dict[str, str] = {}
    for alert in alerts:
        for label, value in text_labels(alert.get("labels")).items():
            if label != "alertname" and len(value) >= 2 and _spells(question, label, value):
                pairs[label] = value
    if not pairs:
        return item
    kept = [a for a in alerts if all(text_labels(a.get("labels")).get(k) == v for k, v in pairs.items())]
    return dataclasses.replace(
        item, data={**item.data, key: kept}, query={**item.query, "labels_asked": dict(sorted(pairs.items()))}
    )


def alerts_placed_in(item: Evidence, word: str) -> list[Mapping[str, Any]]:
    """The alerts of an alert list whose label values hold `word` as a part of a name, never a whole
    one: "what's firing in prod?" asks about the alerts of `cluster=shop-prod-eu`, where no alert is
    of a system called prod."""
    if item.tool not in ("list_alerts", "alert_history"):
        return []
    key = "alerts" if item.tool == "list_alerts" else "history"
    word = word.lower()
    found = []
    for alert in mappings(item.data.get(key)):
        values = [v.lower() for v in text_labels(alert.get("labels")).values()]
        if word in values:
            return []  # a system of that name: its rows say so themselves
        if any(word in re.split(r"[-_.:/]", value) for value in values):
            found.append(alert)
    return found


def alerts_in_place(item: Evidence, words: Sequence[str]) -> Evidence:
    """An alert list narrowed to the alerts placed in every one of `words` (`alerts_placed_in`),
    recorded in its query as `placed_in`."""
    if not words or item.tool not in ("list_alerts", "alert_history"):
        return item
    key = "alerts" if item.tool == "list_alerts" else "history"
    kept = mappings(item.data.get(key))
    for word in words:
        placed = [id(alert) for alert in alerts_placed_in(item, word)]
        kept = [alert for alert in kept if id(alert) in placed]
    return dataclasses.replace(
        item, data={**item.data, key: kept}, query={**item.query, "placed_in": list(words)}
    )


def spells_pair(question: str, label: str, value: str) -> bool:
    """Whether the question spells a label and its value together ("partition 7", "team=blue")."""
    pair = rf"\b{re.escape(label)}\s*[=:]?\s*[\"'`]?{re.escape(value)}(?![\w-])"
    return re.search(pair, question, re.IGNORECASE) is not None


def _spells(question: str, label: str, value: str) -> bool:
    adjective = rf"(?<![\w-]){re.escape(value)}\s+(?:[a-z]+\s+)?alerts?\b"
    # A platform's state in its own spelling ("which pods are in CrashLoopBackOff?"), written as is.
    state = _STATE_VALUE.fullmatch(value) and re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", question)
    return (
        spells_pair(question, label, value)
        or (len(value) >= 4 and bool(re.search(adjective, question, re.IGNORECASE)))
        or bool(state)
    )


_STATE_VALUE = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]*)+|[A-Z][A-Z0-9]*_[A-Z0-9_]+")
