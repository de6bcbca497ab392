"""The table of tools the boundary serves: name, evidence source, argument model, handler."""

from __future__ import annotations

from tools.base import EvidenceSource
from tools.toolbox import args, instant, records, telemetry
from tools.toolbox.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_alerts",
        EvidenceSource.ALERTS,
        args.ListAlertsArgs,
        "List active alerts (all instances), optionally only those of one service.",
        telemetry.list_alerts,
    ),
    ToolSpec(
        "list_metrics",
        EvidenceSource.METRICS,
        args.ListMetricsArgs,
        "Discover which metric series exist, optionally for one service.",
        telemetry.list_metrics,
    ),
    ToolSpec(
        "query_metric",
        EvidenceSource.METRICS,
        args.QueryMetricArgs,
        "Range query of a common signal (error_rate, latency_p99, saturation, cpu, memory, "
        "connections) of one service.",
        telemetry.query_metric,
    ),
    ToolSpec(
        "query_promql",
        EvidenceSource.METRICS,
        args.QueryPromqlArgs,
        "Range query of a raw PromQL expression over a bounded window and step.",
        telemetry.query_promql,
    ),
    ToolSpec(
        "query_promql_instant",
        EvidenceSource.METRICS,
        args.QueryPromqlInstantArgs,
        "Instant query of a raw PromQL expression, now or a bounded number of minutes ago.",
        instant.query_promql_instant,
    ),
    ToolSpec(
        "list_log_streams",
        EvidenceSource.LOGS,
        args.ListLogStreamsArgs,
        "Discover log streams: the values of a stream label (default: service).",
        telemetry.list_log_streams,
    ),
    ToolSpec(
        "query_logs",
        EvidenceSource.LOGS,
        args.QueryLogsArgs,
        "Log lines of a service, optionally containing a text or at a level, or by a native query.",
        telemetry.query_logs,
    ),
    ToolSpec(
        "list_tables",
        EvidenceSource.SQL,
        args.ListTablesArgs,
        "List the tables of a named read-only SQL datasource.",
        records.list_tables,
    ),
    ToolSpec(
        "query_mysql",
        EvidenceSource.SQL,
        args.QueryMysqlArgs,
        "Run one read-only statement (SELECT, SHOW, DESCRIBE, EXPLAIN) on a named datasource.",
        records.query_mysql,
    ),
    ToolSpec(
        "list_runbooks",
        EvidenceSource.KNOWLEDGE,
        args.ListRunbooksArgs,
        "List the runbooks and their sections.",
        records.list_runbooks,
    ),
    ToolSpec(
        "search_runbooks",
        EvidenceSource.KNOWLEDGE,
        args.SearchRunbooksArgs,
        "Search runbooks for passages relevant to a question.",
        records.search_runbooks,
    ),
    ToolSpec(
        "search_cases",
        EvidenceSource.CASES,
        args.SearchCasesArgs,
        "Search past diagnosed cases similar to a question (historical clues only).",
        records.search_cases,
    ),
)

TOOLS_BY_NAME = {spec.name: spec for spec in TOOLS}
