"""Which evidence backends serve this process: an explicit list, chosen from settings.

With no telemetry backend configured, the world directory (default: the bundled demo world) serves
every source. Once any real telemetry backend is configured, the world is not consulted at all: an
unconfigured source is then UNAVAILABLE rather than silently answered with demo data.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from api.settings import Settings
from tools.alertmanager.client import AlertmanagerClient
from tools.alertmanager.fixture import AlertmanagerFixture
from tools.base import CaseSource, KnowledgeSource, Sources, SqlSource
from tools.demo_world import DEMO_WORLD_DIR
from tools.loki.client import LokiClient
from tools.loki.fixture import LokiFixture
from tools.prometheus.client import PrometheusClient
from tools.prometheus.fixture import PrometheusFixture
from tools.runbooks import RunbookLibrary
from tools.sql.client import SqlDatasources
from tools.sql.fixture import SqliteWorldDatasources
from tools.world import World, load_world


def world_sources(
    world: World, *, cases: CaseSource | None = None, knowledge_dir: Path | None = None
) -> Sources:
    """Every source served from one world; a file the world lacks is an absent (UNAVAILABLE) source,
    not an empty success."""
    root = world.root
    docs = knowledge_dir or world.docs_dir
    return Sources(
        alerts=AlertmanagerFixture(world) if (root / "alerts.json").is_file() else None,
        metrics=PrometheusFixture(world) if (root / "metrics.json").is_file() else None,
        logs=LokiFixture(world) if (root / "logs.jsonl").is_file() else None,
        sql=SqliteWorldDatasources(root / "sql") if world.sql_scripts else None,
        knowledge=RunbookLibrary(docs) if docs is not None else None,
        cases=cases,
    )


def uses_world(settings: Settings) -> bool:
    real = (settings.prometheus_url, settings.alertmanager_url, settings.loki_url)
    return settings.world_dir is not None or not any(real)


def build_sources(settings: Settings, http: httpx.AsyncClient, *, cases: CaseSource | None) -> Sources:
    """The sources this process serves (see the module docstring for the rule)."""
    if uses_world(settings):
        world = load_world(settings.world_dir or DEMO_WORLD_DIR)
        sources = world_sources(world, cases=cases, knowledge_dir=settings.knowledge_dir)
    else:
        sources = _real_sources(settings, http, cases)
    if settings.backends.sql_datasources:
        sources.sql = _sql(settings)
    return sources


def _real_sources(settings: Settings, http: httpx.AsyncClient, cases: CaseSource | None) -> Sources:
    bounds = settings.backends
    # The raw response may be larger than the bounded evidence made from it, but never unbounded.
    max_bytes, timeout_s = bounds.max_result_bytes * 4, bounds.tool_timeout_s
    prometheus = (
        PrometheusClient(http, settings.prometheus_url, max_bytes=max_bytes, timeout_s=timeout_s)
        if settings.prometheus_url
        else None
    )
    alerts = (
        AlertmanagerClient(http, settings.alertmanager_url, max_bytes=max_bytes, timeout_s=timeout_s)
        if settings.alertmanager_url
        else prometheus
    )
    knowledge: KnowledgeSource | None = (
        RunbookLibrary(settings.knowledge_dir) if settings.knowledge_dir else None
    )
    return Sources(
        alerts=alerts,
        metrics=prometheus,
        logs=LokiClient(http, settings.loki_url, max_bytes=max_bytes, timeout_s=timeout_s)
        if settings.loki_url
        else None,
        knowledge=knowledge,
        cases=cases,
    )


def _sql(settings: Settings) -> SqlSource:
    urls = {name: url.get_secret_value() for name, url in settings.backends.sql_datasources.items()}
    return SqlDatasources(urls)
