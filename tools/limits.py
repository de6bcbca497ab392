"""The bounds every evidence tool call obeys, as plain values (tools never import api settings).

The one definition of their defaults: `api.settings.BackendSettings` reads them from here, and the
composition root maps the settings block back onto it (`api.composition.tool_limits`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from tools.identity import DEFAULT_IDENTITY, IdentityLabels
from tools.prometheus.discovery import DEFAULT_STACK_JOBS


def _default_metric_templates() -> dict[str, str]:
    return {
        "error_rate": (
            'sum(rate(http_requests_total{{service="{service}",code=~"5.."}}[{window}]))'
            ' / sum(rate(http_requests_total{{service="{service}"}}[{window}]))'
        ),
        "latency_p99": (
            "histogram_quantile(0.99, sum by (le) (rate("
            'http_request_duration_seconds_bucket{{service="{service}"}}[{window}])))'
        ),
        "saturation": 'max(saturation_ratio{{service="{service}"}})',
        "cpu": 'sum(rate(process_cpu_seconds_total{{service="{service}"}}[{window}]))',
        "memory": 'sum(process_resident_memory_bytes{{service="{service}"}})',
        "connections": 'sum(db_connections_in_use{{service="{service}"}})',
    }


@dataclass(frozen=True, slots=True)
class ToolLimits:
    """The tool bounds; `BackendSettings` adds the datasources and takes these defaults."""

    tool_timeout_s: float = 10.0
    max_result_bytes: int = 65_536
    # The raw HTTP body a backend may send (Prometheus, Alertmanager, Loki) before the call fails;
    # bounded evidence is cut from it down to max_result_bytes.
    max_raw_response_bytes: int = 1_048_576
    max_summary_chars: int = 600
    max_rows: int = 200
    max_series: int = 50
    max_log_lines: int = 500
    max_alerts: int = 200
    max_discovery_items: int = 200
    max_promql_chars: int = 2_000
    max_range_minutes: int = 1_440
    default_window_minutes: int = 60
    min_step_seconds: int = 15
    max_points_per_series: int = 1_000
    max_sql_chars: int = 4_000
    sql_statement_timeout_ms: int = 5_000
    # Identical calls share one answer this long; live state (alerts) is shared only within a run,
    # so a later question never sees an alert that has since resolved as firing.
    cache_ttl_s: float = 5.0
    cache_capacity: int = 1_024
    run_evidence_budget_bytes: int = 1_048_576
    # signal -> PromQL template; `{service}` and `{window}` (a range such as `5m`) are filled in.
    metric_templates: Mapping[str, str] = field(default_factory=_default_metric_templates)
    # Which labels name a system, in priority order, and which qualify it (`tools.identity`).
    identity_labels: tuple[str, ...] = DEFAULT_IDENTITY.labels
    identity_resource_labels: tuple[str, ...] = DEFAULT_IDENTITY.resources
    # Scrape jobs of the monitoring stack itself: their series (and every exporter's go_/process_/
    # promhttp_ series) are never chosen as suspects unless the question is about them.
    monitoring_jobs: tuple[str, ...] = DEFAULT_STACK_JOBS

    @property
    def identity(self) -> IdentityLabels:
        return IdentityLabels(tuple(self.identity_labels), tuple(self.identity_resource_labels))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> ToolLimits:
        """Build from a settings dump, ignoring keys that are not limits (e.g. datasource URLs)."""
        known = {f.name for f in fields(cls)}
        kept = {key: value for key, value in values.items() if key in known}
        for key in ("identity_labels", "identity_resource_labels"):
            if key in kept:
                kept[key] = tuple(kept[key])
        return cls(**kept)
