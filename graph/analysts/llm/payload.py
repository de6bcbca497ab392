"""Compact JSON the model reads: bounded views of the digest, the evidence index and discovery.

Every view is capped by count and by text length, so a prompt stays within a few thousand tokens
whatever the tools returned; the model never sees raw tool output.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from graph.analysts.base import Discovery, EvidenceRef, Turn
from tools.digest.labels import service_of
from tools.facts import AlertGroup, Digest
from tools.toolbox.catalog import DISCOVERY_TOOLS

MAX_FACTS_PER_KIND = 10
MAX_EVIDENCE_REFS = 60
MAX_PAYLOAD_CHARS = 40_000
MAX_TEXT_CHARS = 160
MAX_SUMMARY_CHARS = 100
MAX_METRICS = 40
MAX_NAMES = 40


def compact(payload: dict[str, Any]) -> str:
    """One-line JSON, cut to a bound so a huge digest cannot blow the token budget."""
    return json.dumps(payload, default=str, separators=(",", ":"), ensure_ascii=False)[:MAX_PAYLOAD_CHARS]


def digest_view(digest: Digest, *, per_kind: int = MAX_FACTS_PER_KIND) -> dict[str, Any]:
    """The strongest facts of each kind, long texts clipped, fields the model does not use dropped."""
    anomalies = sorted(digest.anomalies, key=lambda a: a.score, reverse=True)[:per_kind]
    patterns = sorted(digest.log_patterns, key=lambda p: p.count, reverse=True)[:per_kind]
    return {
        "anomalies": [
            _fact(asdict(a), drop=("score",)) | {"labels": _other_labels(a.labels)} for a in anomalies
        ],
        "log_patterns": [_fact(asdict(p)) for p in patterns],
        "alert_groups": [_alert_group(g) for g in digest.alert_groups[:per_kind]],
        "sql": [_fact(asdict(s)) for s in digest.sql[:per_kind]],
        "runbooks": [_fact(asdict(r), drop=("score",)) for r in digest.runbooks[:per_kind]],
        "past_cases_clues_only": [_fact(asdict(c), drop=("score",)) for c in digest.cases[:per_kind]],
        "unavailable_sources": [_fact(asdict(g)) for g in digest.gaps[:per_kind]],
        # A database's own account (inspect_database), only when one was asked: no empty key costs tokens.
        **(
            {"databases": [_fact(asdict(d)) for d in digest.databases[:per_kind]]} if digest.databases else {}
        ),
    }


def evidence_view(
    refs: Sequence[EvidenceRef], digest: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The citable evidence: id, tool, status, and a short summary of the items no fact in the
    `digest` view already describes; name listings are left out."""
    described = {fact.get("evidence_id") for facts in (digest or {}).values() for fact in facts}
    return [
        {"id": r.id, "tool": r.tool, "status": r.status}
        | ({} if r.id in described else {"summary": _clip(r.summary, MAX_SUMMARY_CHARS)})
        for r in refs
        if r.tool not in DISCOVERY_TOOLS  # names only: the planner's view already holds them
    ][:MAX_EVIDENCE_REFS]


MAX_READS = 12


def discovery_view(discovery: Discovery) -> dict[str, Any]:
    """What exists: metric names with the services that report them, log services, tables, runbooks."""
    metrics = {
        name: _names(service_of(labels) or "" for labels in label_sets)[:12]
        for name, label_sets in list(discovery.metrics.items())[:MAX_METRICS]
    }
    return {
        "metrics": metrics,
        "log_services": list(discovery.log_services)[:MAX_NAMES],
        "tables": {name: list(tables)[:MAX_NAMES] for name, tables in discovery.tables.items()},
        "runbooks": list(discovery.runbooks)[:MAX_NAMES],
        "services": list(discovery.services)[:MAX_NAMES],
        # The typed reads discovery chose (firing alerts' metrics first): read_metric arguments, the
        # model's best starting points. Their PromQL is left out: metric and matchers say it, and it
        # repeats the monitoring-stack exclusion once per read.
        "metric_reads": [
            {key: read[key] for key in ("metric", "kind", "matchers", "reason") if key in read}
            for read in list(discovery.reads)[:MAX_READS]
        ],
    }


def history_view(turns: Sequence[Turn]) -> list[dict[str, Any]]:
    return [asdict(turn) for turn in turns[-5:]]


def _fact(fields: Mapping[str, Any], *, drop: Iterable[str] = ()) -> dict[str, Any]:
    dropped = set(drop)
    return {
        key: _clip(value) if isinstance(value, str) else _clip_list(value)
        for key, value in fields.items()
        if key not in dropped and value not in (None, "", [], {})
    }


def _clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip_list(value: Any) -> Any:
    if isinstance(value, list):
        return [_clip(v) if isinstance(v, str) else v for v in value[:8]]
    return value


# An alert group's own fields already say these labels; other annotations (runbook_url, dashboards)
# cost tokens the model cannot use.
_SAID_LABELS = frozenset({"alertname", "severity", "service", "status"})
_ALERT_ANNOTATIONS = ("summary", "description")
MAX_LABEL_CHARS = 120


def _alert_group(group: AlertGroup) -> dict[str, Any]:
    """An alert group without repeats: the group's service in each identity text, labels an identity
    or the group's own fields already say, instances an identity names, the summary annotation and
    zero suppression counts (`muted` is silenced or inhibited) are dropped; what an SRE acts on
    (identity, other labels such as mountpoint or device, value, silenced/inhibited state) stays."""
    own = f"service={group.service}"
    identities = [" ".join(p for p in text.split() if p != own) for text in group.identities]
    said = {part for text in group.identities for part in text.split()}
    labels = {
        key: _clip(value, MAX_LABEL_CHARS)
        for key, value in group.labels.items()
        if key not in _SAID_LABELS and f"{key}={value}" not in said
    }
    annotations = {
        key: _clip(text, MAX_LABEL_CHARS)
        for key in _ALERT_ANNOTATIONS
        if (text := group.annotations.get(key)) and text != group.summary
    }
    named = {part.partition("=")[2] for part in said}
    fields = asdict(group) | {
        "identities": [text for text in identities if text],
        "instances": [name for name in group.instances if name not in named],
        "labels": labels,
        "annotations": annotations,
    }
    zero = [key for key in ("silenced", "inhibited") if not fields[key]]
    return _fact(fields, drop=("muted", *zero))


def _other_labels(labels: Mapping[str, str]) -> dict[str, str]:
    # The service has its own field; repeating it in every label set only costs tokens.
    return {key: value for key, value in labels.items() if key != "service"}


def _names(values: Iterable[str]) -> list[str]:
    return [name for name in dict.fromkeys(values) if name]
