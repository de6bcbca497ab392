"""Reads the structured results of discovery calls (series, stream values, tables, runbooks) into names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graph.analysts.base import Discovery
from tools.base import Evidence
from tools.digest.labels import service_of

MAX_LABEL_SETS_PER_METRIC = 60
SERVICE_LABELS = frozenset({"service", "service_name", "app", "application", "job", "container"})


def discover(items: Iterable[Evidence]) -> Discovery:
    """Names found by successful discovery calls of this run."""
    metrics: dict[str, list[dict[str, str]]] = {}
    log_services: list[str] = []
    tables: dict[str, list[str]] = {}
    runbooks: list[str] = []
    services: list[str] = []
    for item in items:
        if not item.status.succeeded:
            continue
        data = item.data
        if item.tool == "list_metrics":
            for ref in _mappings(data.get("series")):
                labels = _text_labels(ref.get("labels"))
                sets = metrics.setdefault(str(ref.get("metric", "")), [])
                if len(sets) < MAX_LABEL_SETS_PER_METRIC:
                    sets.append(labels)
                services.append(service_of(labels) or "")
        elif item.tool == "list_log_streams" and str(data.get("label", "")) in SERVICE_LABELS:
            log_services += [str(v) for v in data.get("values") or []]
        elif item.tool == "list_tables":
            tables[str(data.get("datasource", ""))] = [str(t) for t in data.get("tables") or []]
        elif item.tool == "list_runbooks":
            runbooks += [str(entry.get("file", "")) for entry in _mappings(data.get("runbooks"))]
        elif item.tool == "list_alerts":
            services += [
                service_of(alert.get("labels") or {}) or "" for alert in _mappings(data.get("alerts"))
            ]
    services += log_services
    return Discovery(
        metrics={name: sets for name, sets in metrics.items() if name},
        log_services=_unique(log_services),
        tables=tables,
        runbooks=_unique(runbooks),
        services=_unique(services),
    )


def _mappings(value: Any) -> Sequence[Mapping[str, Any]]:
    return [entry for entry in value or [] if isinstance(entry, Mapping)]


def _unique(names: Iterable[str]) -> list[str]:
    return [name for name in dict.fromkeys(names) if name]


def _text_labels(labels: Any) -> dict[str, str]:
    """The label set with text keys and values. Bounded tool data is decoded JSON, so the usual set
    already is and is shared, not copied: a run holds its discovery for the whole planning round."""
    if not isinstance(labels, dict):
        return {}
    if all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
        return labels
    return {str(k): str(v) for k, v in labels.items()}
