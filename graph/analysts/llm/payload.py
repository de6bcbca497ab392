"""Compact JSON the model reads: bounded views of the digest, the evidence index and discovery.

Every view is capped by count and by text length, so a prompt stays within a few thousand tokens
whatever the tools returned; the model never sees raw tool output.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from graph.analysts.base import Discovery, EvidenceRef, Turn
from tools.digest.labels import service_of
from tools.facts import AlertGroup, Digest, RoutineMove
from tools.toolbox.catalog import DISCOVERY_TOOLS

MAX_FACTS_PER_KIND = 10
MAX_EVIDENCE_REFS = 60
MAX_PAYLOAD_CHARS = 40_000
MAX_TEXT_CHARS = 160
MAX_SUMMARY_CHARS = 100
MAX_METRICS = 40
MAX_NAMES = 40
MAX_LISTED = 8  # entries of a list inside a fact


def compact(payload: dict[str, Any]) -> str:
    """One-line JSON, cut to a bound so a huge digest cannot blow the token budget."""
    return json.dumps(payload, default=str, separators=(",", ":"), ensure_ascii=False)[:MAX_PAYLOAD_CHARS]


def digest_view(digest: Digest, *, per_kind: int = MAX_FACTS_PER_KIND) -> dict[str, Any]:
    """The strongest facts of each kind, long texts clipped, fields the model does not use dropped;
    a kind with no fact is left out (an empty key costs tokens and says nothing)."""
    anomalies = sorted(digest.anomalies, key=lambda a: a.score, reverse=True)[:per_kind]
    patterns = sorted(digest.log_patterns, key=lambda p: p.count, reverse=True)[:per_kind]
    kinds = {
        "anomalies": [
            _fact(asdict(a), drop=("score",)) | {"labels": _other_labels(a.labels)} for a in anomalies
        ],
        # A line of the pattern says what its template says, in real words: the template would repeat it.
        "log_patterns": [_fact(asdict(p), drop=("template",) if p.example else ()) for p in patterns],
        "alert_groups": [_alert_group(g) for g in digest.alert_groups[:per_kind]],
        "sql": [_fact(asdict(s)) for s in digest.sql[:per_kind]],
        "runbooks": [_fact(asdict(r), drop=("score",)) for r in digest.runbooks[:per_kind]],
        "past_cases_clues_only": [_fact(asdict(c), drop=("score",)) for c in digest.cases[:per_kind]],
        "unavailable_sources": [_fact(asdict(g)) for g in digest.gaps[:per_kind]],
        # A database's own account (inspect_database), present only when one was asked.
        "databases": [_fact(asdict(d)) for d in digest.databases[:per_kind]],
        # Moves the same series made at the same hour days before: the daily rhythm, no incident.
        "routine_moves": [_routine(m) for m in digest.routine[:per_kind]],
    }
    return {kind: facts for kind, facts in kinds.items() if facts}


def evidence_view(refs: Sequence[EvidenceRef], digest: Mapping[str, Any] | None = None) -> list[str]:
    """The citable evidence, one `id tool STATUS` text each, `: summary` added for the items no fact
    in the `digest` view already describes; name listings are left out."""
    described = {fact.get("evidence_id") for facts in (digest or {}).values() for fact in facts}
    return [
        f"{r.id} {r.tool} {r.status}"
        + ("" if r.id in described else f": {_clip(r.summary, MAX_SUMMARY_CHARS)}")
        for r in refs
        # Names only: the planner's view already holds them. A read of days past says something
        # only as a routine move (`earlier_evidence_id` there), which the digest view shows.
        if r.tool not in DISCOVERY_TOOLS and not r.args.get("days_before")
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
        key: _clip(value) if isinstance(value, str) else _round(_clip_list(value))
        for key, value in fields.items()
        # An empty value or a false flag (`steady: false`) says nothing its absence does not.
        if key not in dropped and value not in (None, "", [], {}) and value is not False
    }


def _round(value: Any) -> Any:
    """A float to 4 significant digits, a whole one as an int: `37` and `0.2009`, never `37.0`."""
    if not isinstance(value, float) or not math.isfinite(value):
        return value
    rounded = float(f"{value:.4g}")
    return int(rounded) if rounded.is_integer() else rounded


def _routine(move: RoutineMove) -> dict[str, Any]:
    anomaly = move.anomaly
    return _fact(
        {
            "evidence_id": anomaly.evidence_id,
            "earlier_evidence_id": move.earlier_evidence_id,
            "metric": anomaly.metric,
            "service": anomaly.service,
            "baseline": anomaly.baseline,
            "recent": anomaly.recent,
            "change_at": anomaly.change_at,
            "days_before": move.days_before,
            "earlier_peak": move.earlier_peak,
        }
    )


def _clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    # "..." rather than "…": one character beyond Latin-1 makes Python store the whole prompt at two
    # bytes a character, and the prompt stays alive for as long as its model call is in flight.
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _clip_list(value: Any) -> Any:
    if isinstance(value, list):
        return [_clip(v) if isinstance(v, str) else v for v in value[:MAX_LISTED]]
    return value


# An alert group's own fields already say these labels; annotations other than the description
# (runbook_url, dashboards) cost tokens the model cannot use.
_SAID_LABELS = frozenset({"alertname", "severity", "service", "status"})
MAX_LABEL_CHARS = 120
_LONE_INSTANCE = re.compile(r"instance=\S+")


def _alert_group(group: AlertGroup) -> dict[str, Any]:
    """An alert group without repeats: the group's service in each identity text, labels an identity
    or the group's own fields already say, instances an identity names, the summary annotation, a
    count its one list of alerts says and zero suppression counts (`muted` is silenced or inhibited)
    are dropped; what an SRE acts on (identity, other labels such as mountpoint or device, value,
    description, silenced/inhibited state) stays."""
    own = f"service={group.service}"
    texts = [" ".join(p for p in text.split() if p != own) for text in group.identities]
    said = {part for text in group.identities for part in text.split()}
    labels = {
        key: _clip(value, MAX_LABEL_CHARS)
        for key, value in group.labels.items()
        if key not in _SAID_LABELS and f"{key}={value}" not in said
    }
    # Of the annotations, the description says more than `summary` (itself the summary annotation).
    text = group.annotations.get("description")
    described = {"description": _clip(text, MAX_LABEL_CHARS)} if text and text != group.summary else {}
    named = {part.partition("=")[2] for part in said}
    identities = [text for text in texts if text]
    instances = [name for name in group.instances if name not in named]
    if identities and all(_LONE_INSTANCE.fullmatch(text) for text in identities):
        # Identities that are an instance alone are listed as instances: `instance=` said once.
        instances = [text.partition("=")[2] for text in identities] + instances
        identities = []
    fields = asdict(group) | {"identities": identities, "instances": instances, "labels": labels}
    # One list with an entry per alert says the count already.
    lists = [names for names in (identities, instances) if names]
    count_said = len(lists) == 1 and len(lists[0]) == group.count <= MAX_LISTED
    dropped = ["muted", "annotations", *(key for key in ("silenced", "inhibited") if not fields[key])]
    return _fact(fields, drop=dropped + (["count"] if count_said else [])) | described


def _other_labels(labels: Mapping[str, str]) -> dict[str, str]:
    # The service has its own field; repeating it in every label set only costs tokens.
    return {key: value for key, value in labels.items() if key != "service"}


def _names(values: Iterable[str]) -> list[str]:
    return [name for name in dict.fromkeys(values) if name]
