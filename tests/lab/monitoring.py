"""The lab's Prometheus and Alertmanager configuration: 1 s scrapes and evaluations, and alert rules of
the kind community mixins ship (several aggregate `by (instance)` and so carry no `job`)."""

from __future__ import annotations

from typing import Any

# Targets carry the host-like instance names file_sd configurations usually give them.
INSTANCES = {
    "node": "web-1",
    "postgres": "pg-1",
    "mysqld": "mariadb-1",
    "redis": "cache-1",
    "storefront": "storefront-1",
}

# Blocked sessions per database, from pg_blocking_pids (the stock exporter has no such series).
POSTGRES_QUERIES = {
    "pg_blocked": {
        "query": (
            "SELECT d.datname,"
            " count(a.pid) FILTER (WHERE cardinality(pg_blocking_pids(a.pid)) > 0) AS sessions "
            "FROM pg_database d LEFT JOIN pg_stat_activity a ON a.datname = d.datname "
            "WHERE NOT d.datistemplate GROUP BY d.datname"
        ),
        "metrics": [
            {"datname": {"usage": "LABEL", "description": "database"}},
            {"sessions": {"usage": "GAUGE", "description": "sessions waiting on another session's lock"}},
        ],
    }
}


def _rule(name: str, expr: str, for_s: int, summary: str, severity: str = "warning") -> dict[str, Any]:
    return {
        "alert": name,
        "expr": expr,
        "for": f"{for_s}s",
        "labels": {"severity": severity},
        "annotations": {"summary": summary},
    }


RULES: list[dict[str, Any]] = [
    _rule(
        "HostHighCpuLoad",
        '100 * (1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[10s]))) > 97',
        5,
        'CPU of {{ $labels.instance }} above 97% ({{ $value | printf "%.0f" }}%)',
    ),
    _rule(
        "HostFilesystemAlmostFull",
        '100 * node_filesystem_avail_bytes{fstype!~"rootfs|overlay|squashfs"}'
        " / node_filesystem_size_bytes < 10 and node_filesystem_readonly == 0",
        2,
        '{{ $labels.mountpoint }} on {{ $labels.instance }} has {{ $value | printf "%.0f" }}% left',
        "critical",
    ),
    _rule(
        "PostgresLockContention",
        "sum by (instance, datname) (pg_blocked_sessions) > 0",
        3,
        "{{ $value }} sessions in {{ $labels.datname }} wait on a lock",
    ),
    _rule(
        "PostgresIdleInTransaction",
        'max by (instance, datname) (pg_stat_activity_max_tx_duration{state="idle in transaction"}) > 5',
        2,
        "a transaction in {{ $labels.datname }} has been idle for {{ $value }}s",
    ),
    _rule(
        "PostgresTooManyConnections",
        "sum by (instance) (pg_stat_activity_count) / max by (instance) (pg_settings_max_connections) > 0.6",
        3,
        "{{ $labels.instance }} uses {{ $value | humanizePercentage }} of max_connections",
    ),
    _rule(
        "RedisKeySpike",
        "sum by (instance) (redis_db_keys) > 10000",
        2,
        "{{ $labels.instance }} holds {{ $value }} keys",
    ),
    _rule(
        "MysqlTooManyConnections",
        "max by (instance) (mysql_global_status_threads_connected)"
        " / max by (instance) (mysql_global_variables_max_connections) > 0.8",
        3,
        "{{ $labels.instance }} near max_connections",
    ),
    _rule("TargetDown", "up == 0", 3, "{{ $labels.job }} target {{ $labels.instance }} is down", "critical"),
    _rule(
        "HighRequestLatency",
        "histogram_quantile(0.95, sum by (le, handler) "
        '(rate(http_request_duration_seconds_bucket{job="storefront"}[10s]))) > 0.3',
        3,
        "p95 of {{ $labels.handler }} is {{ $value }}s",
    ),
    _rule(
        "HighErrorRate",
        'sum by (handler) (rate(http_requests_total{job="storefront",status=~"5.."}[10s]))'
        ' / sum by (handler) (rate(http_requests_total{job="storefront"}[10s])) > 0.05',
        3,
        "{{ $labels.handler }} fails {{ $value | humanizePercentage }} of requests",
        "critical",
    ),
]


def rules_file() -> dict[str, Any]:
    return {"groups": [{"name": "lab", "interval": "1s", "rules": RULES}]}


def prometheus_config(
    targets: dict[str, int], *, prometheus_port: int, alertmanager_port: int, rules_path: str
) -> dict[str, Any]:
    """Scrape every target (job -> port), Prometheus and Alertmanager themselves each second (their
    internals move whenever alerts fire, as on a real host), evaluate every second."""
    jobs = [
        {
            "job_name": job,
            "static_configs": [{"targets": [f"127.0.0.1:{port}"], "labels": {"instance": INSTANCES[job]}}],
        }
        for job, port in targets.items()
    ]
    for job, port in (("prometheus", prometheus_port), ("alertmanager", alertmanager_port)):
        jobs.append({"job_name": job, "static_configs": [{"targets": [f"127.0.0.1:{port}"]}]})
    return {
        "global": {"scrape_interval": "1s", "scrape_timeout": "900ms", "evaluation_interval": "1s"},
        "rule_files": [rules_path],
        "alerting": {
            "alertmanagers": [{"static_configs": [{"targets": [f"127.0.0.1:{alertmanager_port}"]}]}]
        },
        "scrape_configs": jobs,
    }


def alertmanager_config(webhook_url: str, token: str) -> dict[str, Any]:
    """Every group is sent to the service's Alertmanager webhook (with its own bearer token), as an SRE
    would point a receiver at it: each firing group starts one investigation."""
    return {
        "route": {
            "receiver": "superbiz",
            "group_by": ["alertname", "instance"],
            "group_wait": "1s",
            "group_interval": "1s",
            "repeat_interval": "1h",
        },
        "receivers": [
            {
                "name": "superbiz",
                "webhook_configs": [
                    {
                        "url": webhook_url,
                        "send_resolved": True,
                        "http_config": {"authorization": {"type": "Bearer", "credentials": token}},
                    }
                ],
            }
        ],
    }
