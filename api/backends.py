"""Which evidence backends serve this process: an explicit list, chosen from settings.

With no telemetry backend configured, the world directory (default: the bundled demo world) serves
every source. Once any real telemetry backend is configured, the world is not consulted at all: an
unconfigured source is then UNAVAILABLE rather than silently answered with demo data.
"""

from __future__ import annotations

import logging
from pathlib import Path

import httpx

from api.settings import Settings
from tools.alertmanager.client import AlertmanagerClient
from tools.alertmanager.fixture import AlertmanagerFixture
from tools.base import CaseSource, KnowledgeSource, LogsSource, Sources, SqlSource
from tools.demo_world import DEMO_WORLD_DIR
from tools.logfiles import Journal, LogFiles
from tools.logfiles.journal import available as journalctl_available
from tools.loki.client import LokiClient
from tools.loki.fixture import LokiFixture
from tools.prometheus.client import PrometheusClient
from tools.prometheus.fixture import PrometheusFixture
from tools.runbooks import RunbookLibrary
from tools.sql.audited import AuditedDatasources
from tools.sql.client import SqlDatasources
from tools.sql.fixture import SqliteWorldDatasources
from tools.sql.session import SessionBounds
from tools.world import World, load_world

log = logging.getLogger("superbiz.backends")

SQL_DATASOURCES_ENV = "SUPERBIZ_BACKENDS__SQL_DATASOURCES"
SQL_ALLOW_PRIVILEGED_ENV = "SUPERBIZ_BACKENDS__SQL_ALLOW_PRIVILEGED_ROLES"


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
    logs = settings.backends
    real = (settings.prometheus_url, settings.alertmanager_url, settings.loki_url, logs.log_files)
    return settings.world_dir is not None or not any((*real, logs.log_journal, logs.log_journal_path))


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
    max_bytes, timeout_s = bounds.max_raw_response_bytes, bounds.tool_timeout_s
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
        else _host_logs(settings),
        knowledge=knowledge,
        cases=cases,
    )


def _host_logs(settings: Settings) -> LogsSource | None:
    """The host's log files and journal (no Loki), when any is configured."""
    bounds = settings.backends
    journal = None
    if bounds.log_journal or bounds.log_journal_path is not None:
        if journalctl_available():
            journal = Journal(bounds.log_journal_path, scan_entries=bounds.log_scan_entries)
        else:
            log.warning("the journal is configured as a log source, but journalctl is not installed")
    if not bounds.log_files and journal is None:
        return None
    return LogFiles(bounds.log_files, journal=journal, scan_bytes=bounds.log_scan_bytes)


def _sql(settings: Settings) -> SqlSource:
    bounds = settings.backends
    urls = {name: url.get_secret_value() for name, url in bounds.sql_datasources.items()}
    session = SessionBounds(
        max_result_bytes=bounds.max_result_bytes,
        work_mem_kb=bounds.sql_work_mem_kb,
        temp_file_limit_kb=bounds.sql_temp_file_limit_kb,
        lock_timeout_ms=bounds.sql_lock_timeout_ms,
    )
    return AuditedDatasources(
        SqlDatasources(urls, bounds=session), urls, allow_privileged=bounds.sql_allow_privileged_roles
    )


class PrivilegedDatasourceError(RuntimeError):
    """Start-up refused: a SQL datasource connects with a role that can do more than read."""


async def audit_sql_roles(sources: Sources) -> None:
    """Audit every datasource's role once at start-up. A privileged role stops start-up (never a
    silent downgrade: the operator meant that datasource to be used); an unreachable one starts
    disabled and is audited again on first use and by /readyz."""
    if not isinstance(sources.sql, AuditedDatasources):
        return
    for name, role in (await sources.sql.audit()).items():
        if role.state == "refused":
            raise PrivilegedDatasourceError(
                f"SQL datasource {name!r} (in {SQL_DATASOURCES_ENV}) connects with a {role.detail}. "
                f"Connect it with the read-only role the README describes, or, in a lab only, set "
                f"{SQL_ALLOW_PRIVILEGED_ENV}=true."
            )
        if role.state == "allowed":
            log.warning(
                "!!! UNSAFE: SQL datasource %r (in %s) is served with a %s, because %s=true. "
                "A hostile statement that passes the guard can change or read anything this role can. "
                "Never use this setting outside a lab. !!!",
                name, SQL_DATASOURCES_ENV, role.detail, SQL_ALLOW_PRIVILEGED_ENV,
            )  # fmt: skip
        elif role.state == "unchecked":
            log.warning("SQL datasource %r is disabled until its role can be audited: %s", name, role.detail)
