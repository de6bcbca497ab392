"""Rule-based planning: discovery first, then targeted queries for the services that matter.

Round 1 lists what exists (alerts, metric series, log streams, tables, runbooks) and searches runbooks
and past cases. Round 2 queries discovered metrics across services, error and warning logs, change
lines of the focus services, and the tables of each datasource, within the remaining tool budget.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graph.analysts.base import Plan, PlannedCall, PlanRequest
from graph.analysts.rules.route import question_terms
from graph.analysts.rules.vocabulary import BAD_SIGNAL, SEVERE_ALERTS
from tools.digest.labels import SERVICE_LABEL_KEYS
from tools.facts import Digest

WINDOW_MINUTES = 120  # long enough for a baseline before a change in the last hour
MAX_METRIC_QUERIES = 12
MAX_SERIES_PER_QUERY = 40
MAX_FOCUS_SERVICES = 4
MAX_TABLES_PER_DATASOURCE = 4
MAX_DATASOURCES = 3
SAMPLE_ROWS = 50
FOLLOW_UP_RESERVE = 4
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SAMPLE = re.compile(r"^SELECT \* FROM ([A-Za-z_][A-Za-z0-9_]*) LIMIT \d+$")
_STATE_COLUMN = re.compile(r"^(?:status|state|phase|result|outcome|wait_event(?:_type)?|level)$", re.I)
_TIME_COLUMN = re.compile(r"(?:updated|modified|changed|created)(?:_at|_on)?$|_at$|timestamp$", re.I)


def plan_discovery(request: PlanRequest) -> Plan:
    """What exists: the first round of every complex question; the short path only reads runbooks."""
    query = request.route.resolved_query[:200]
    if request.route.route == "simple":
        if request.route.intent == "greeting":
            return Plan()
        return Plan(calls=[PlannedCall(tool="search_runbooks", args={"query": query, "limit": 3})])
    calls = [
        PlannedCall(tool="list_alerts", args={}),
        PlannedCall(tool="list_metrics", args={"window_minutes": WINDOW_MINUTES}),
        PlannedCall(tool="list_log_streams", args={"label": "service", "window_minutes": WINDOW_MINUTES}),
        PlannedCall(tool="list_runbooks", args={}),
        PlannedCall(tool="search_runbooks", args={"query": query, "limit": 3}),
        PlannedCall(tool="search_cases", args={"query": query, "limit": 3}),
    ]
    calls += [
        PlannedCall(tool="list_tables", args={"datasource": name})
        for name in request.datasources[:MAX_DATASOURCES]
    ]
    return Plan(calls=calls)


def plan_targeted(request: PlanRequest) -> Plan:
    """Second round: signals for every service, logs for the focus services, tables, runbooks."""
    if request.route.route != "complex":
        return Plan()
    focus = focus_services(request)
    calls = _log_calls(focus) + _metric_calls(request) + _sql_calls(request)
    if alert_terms := _alert_terms(request.digest):
        calls.append(PlannedCall(tool="search_runbooks", args={"query": alert_terms, "limit": 3}))
    # Most important first, so trimming to the budget keeps what matters; a few calls stay for
    # the follow-up round.
    return Plan(calls=calls[: max(0, request.remaining_tool_calls - FOLLOW_UP_RESERVE)])


def plan_followup(request: PlanRequest) -> Plan:
    """Third round: for each table sampled, count rows per state-like column and read the newest rows."""
    if request.route.route != "complex":
        return Plan()
    calls: list[PlannedCall] = []
    for summary in request.digest.sql:
        match = _SAMPLE.match(summary.statement)
        if match is None or not summary.columns:
            continue
        table = match.group(1)
        for column in [c for c in summary.columns if _STATE_COLUMN.search(c)][:2]:
            statement = (
                f"SELECT {column}, COUNT(*) AS row_count FROM {table} "
                f"GROUP BY {column} ORDER BY row_count DESC LIMIT 20"
            )
            calls.append(_sql(summary.datasource, statement))
        recent = [c for c in summary.columns if _TIME_COLUMN.search(c)]
        if recent and summary.row_count >= SAMPLE_ROWS:
            calls.append(
                _sql(summary.datasource, f"SELECT * FROM {table} ORDER BY {recent[0]} DESC LIMIT 20")
            )
    return Plan(calls=calls[: request.remaining_tool_calls])


def _sql(datasource: str, statement: str) -> PlannedCall:
    return PlannedCall(tool="query_mysql", args={"datasource": datasource, "statement": statement})


def focus_services(request: PlanRequest) -> list[str]:
    """Services named in the question (matched to discovered names), then those with firing alerts."""
    known = list(request.discovery.services)
    terms = question_terms(request.route.resolved_query) + [s.lower() for s in request.route.services]
    named = [s for s in known if _matches(s, terms)]
    alerting = [
        group.service
        for group in sorted(request.digest.alert_groups, key=_alert_rank)
        if group.service and group.status == "firing"
    ]
    return list(dict.fromkeys([*named, *alerting]))[:MAX_FOCUS_SERVICES]


def _matches(service: str, terms: Sequence[str]) -> bool:
    name = service.lower()
    parts = set(re.split(r"[-_.]", name))
    return any(term == name or term in parts for term in terms)


def _alert_rank(group: object) -> tuple[int, str]:
    severity = str(getattr(group, "severity", "") or "").lower()
    return (0 if severity in SEVERE_ALERTS else 1, str(getattr(group, "first_started", "") or "~"))


def _log_calls(focus: Sequence[str]) -> list[PlannedCall]:
    window = {"window_minutes": WINDOW_MINUTES}
    calls = [
        PlannedCall(tool="query_logs", args={"level": "error", **window}),
        PlannedCall(tool="query_logs", args={"level": "warn", **window}),
    ]
    # Newest lines win a capped query, so focus services get their own error lines (full onset)
    # and info lines (deploys, restarts and version changes).
    for level in ("error", "info"):
        calls += [
            PlannedCall(tool="query_logs", args={"service": service, "level": level, **window})
            for service in focus
        ]
    return calls


def _metric_calls(request: PlanRequest) -> list[PlannedCall]:
    """One query per metric name across all services; troublesome-sounding names first."""
    metrics = request.discovery.metrics
    names = sorted(metrics, key=lambda name: (not BAD_SIGNAL.search(name), name))
    calls: list[PlannedCall] = []
    for name in names[:MAX_METRIC_QUERIES]:
        if not _IDENTIFIER.match(name.replace(":", "_")):
            continue
        selector = name
        if len(metrics[name]) > MAX_SERIES_PER_QUERY:
            focus = focus_services(request)
            if not focus:
                continue
            # The label the series name their service by: `service` in one world, `job` in another.
            key = next((k for k in SERVICE_LABEL_KEYS if any(k in ls for ls in metrics[name])), "service")
            selector = f'{name}{{{key}=~"{"|".join(re.escape(s) for s in focus)}"}}'
        calls.append(
            PlannedCall(tool="query_promql", args={"promql": selector, "window_minutes": WINDOW_MINUTES})
        )
    return calls


def _sql_calls(request: PlanRequest) -> list[PlannedCall]:
    calls: list[PlannedCall] = []
    for datasource, tables in list(request.discovery.tables.items())[:MAX_DATASOURCES]:
        for table in [t for t in tables if _IDENTIFIER.match(t)][:MAX_TABLES_PER_DATASOURCE]:
            statement = f"SELECT * FROM {table} LIMIT 50"
            calls.append(
                PlannedCall(tool="query_mysql", args={"datasource": datasource, "statement": statement})
            )
    return calls


def _alert_terms(digest: Digest) -> str:
    words = [g.alertname for g in digest.alert_groups if g.status == "firing"]
    words += [g.summary for g in digest.alert_groups if g.status == "firing"][:3]
    return " ".join(dict.fromkeys(words))[:200]
