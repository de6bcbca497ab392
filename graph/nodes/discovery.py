"""Gathers what this run's discovery found: each tool reads its own answer into typed `Found` names
(declared beside its source), and this merges them into the planner's `Discovery`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graph.analysts.base import Discovery
from tools.base import Evidence
from tools.digest.labels import service_of
from tools.toolbox.catalog import TOOLS_BY_NAME
from tools.toolbox.spec import Found

MAX_LABEL_SETS_PER_METRIC = 60


def discover(items: Iterable[Evidence]) -> Discovery:
    """Names found by successful discovery calls of this run."""
    metrics: dict[str, list[Mapping[str, str]]] = {}
    log_services: list[str] = []
    tables: dict[str, list[str]] = {}
    runbooks: list[str] = []
    services: list[str] = []
    reads: list[Mapping[str, Any]] = []
    for item in items:
        found = _found(item)
        if found is None:
            continue
        for metric, labels in found.metrics:
            sets = metrics.setdefault(metric, [])
            if len(sets) < MAX_LABEL_SETS_PER_METRIC:
                sets.append(labels)
            services.append(service_of(labels) or "")
        log_services += found.log_services
        tables.update({name: list(names) for name, names in found.tables.items()})
        runbooks += found.runbooks
        services += found.services
        reads += found.reads
    services += log_services
    return Discovery(
        metrics={name: sets for name, sets in metrics.items() if name},
        log_services=_unique(log_services),
        tables=tables,
        runbooks=_unique(runbooks),
        services=_unique(services),
        reads=reads,
    )


def _found(item: Evidence) -> Found | None:
    spec = TOOLS_BY_NAME.get(item.tool)
    if spec is None or spec.finds is None or not item.status.succeeded:
        return None
    return spec.finds(item.data)


def _unique(names: Iterable[str]) -> list[str]:
    return [name for name in dict.fromkeys(names) if name]
