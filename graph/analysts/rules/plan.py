"""Rule-based planning: discovery first, then targeted queries for the services that matter.

Round 1 lists what exists (alerts, the metrics the question and the firing alerts point to, log
streams, tables, runbooks) and searches runbooks and past cases. Round 2 reads the chosen metrics by
type (and the alerts' current values), error and warning logs, change lines of the focus services,
the tables of each datasource and the scrape targets, within the remaining tool budget.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from graph.analysts.base import Plan, PlannedCall, PlanRequest
from graph.analysts.rules.dependencies import mentions, reports_about
from graph.analysts.rules.introspection import introspection_calls
from graph.analysts.rules.machines import machine_of
from graph.analysts.rules.onset import change_window, read_window
from graph.analysts.rules.route import question_terms
from graph.analysts.rules.scoring import CHANGE_LEAD
from graph.analysts.rules.setting_changes import MAX_SETTINGS, settings_cited
from graph.analysts.rules.suspect import resource_name
from graph.analysts.rules.vocabulary import BAD_SIGNAL, SEVERE_ALERTS
from tools.digest.labels import iso_utc, parse_instant
from tools.facts import Digest
from tools.toolbox.catalog import TOOLS_BY_NAME

MAX_METRIC_QUERIES = 12
MAX_INSTANT_QUERIES = 2
MAX_FOCUS_SERVICES = 4
MAX_TABLES_PER_DATASOURCE = 4
MAX_DATASOURCES = 3
SAMPLE_ROWS = 50
FOLLOW_UP_RESERVE = 4
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SAMPLE = re.compile(r"^SELECT \* FROM ([A-Za-z_][A-Za-z0-9_]*) LIMIT \d+$")
_STATE_COLUMN = re.compile(r"^(?:status|state|phase|result|outcome|wait_event(?:_type)?|level)$", re.I)
_TIME_COLUMN = re.compile(r"(?:updated|modified|changed|created)(?:_at|_on)?$|_at$|timestamp$", re.I)


MAX_EVENT_STREAMS = 3
MAX_RHYTHM_READS = 6  # each a read round 2 made, over an earlier window: cheap
# The arguments read_metric declares (a result's query holds them beside its PromQL and window).
_REREAD_ARGS = tuple(name for name in TOOLS_BY_NAME["read_metric"].args.model_fields if name != "days_before")
MAX_MENTIONED = 2
SETTING_PATTERNS = 6  # the most frequent error patterns whose quoted settings are looked up
MIN_MENTIONED_CHARS = 4  # a shorter name matches too many lines by accident
SETTLED_AFTER = timedelta(minutes=5)  # a mention read ends this long after the last series moved


# A question about what happened hours ago ("we got paged overnight"): the alert history reaches back.
_LOOKS_BACK = re.compile(r"\b(?:overnight|last night|this morning|earlier today|paged)\b", re.IGNORECASE)
_YESTERDAY = re.compile(r"\byesterday\b", re.IGNORECASE)


def _history_args(question: str) -> dict[str, Any]:
    if _YESTERDAY.search(question):
        return {"window_minutes": 2 * 24 * 60}  # bounded by the tools' max_range_minutes
    return {"window_minutes": 12 * 60} if _LOOKS_BACK.search(question) else {}


def plan_discovery(request: PlanRequest) -> Plan:
    """What exists: the first round of every complex question; the short path only reads runbooks."""
    query = request.route.resolved_query[:200]
    window = read_window(request.route.resolved_query, request.now)
    if request.route.route == "simple":
        if request.route.intent == "greeting":
            return Plan()
        return Plan(calls=[PlannedCall(tool="search_runbooks", args={"query": query, "limit": 3})])
    calls = [
        PlannedCall(tool="list_alerts", args={}),
        *(
            [PlannedCall(tool="alert_history", args=_history_args(query))]
            if "alert_history" in request.tool_names
            else []
        ),
        PlannedCall(tool="list_metrics", args={"question": query, "window_minutes": window}),
        PlannedCall(tool="list_log_streams", args={"label": "service", "window_minutes": window}),
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
    # A database's own state first when one is implicated: it names who blocks or holds what.
    window = read_window(request.route.resolved_query, request.now)
    calls = (
        introspection_calls(request)
        + _log_calls(focus, window)
        + _metric_calls(request, window)
        + _sql_calls(request)
    )
    if alert_terms := _alert_terms(request.digest):
        calls.append(PlannedCall(tool="search_runbooks", args={"query": alert_terms, "limit": 3}))
    if "list_targets" in request.tool_names:
        calls.append(PlannedCall(tool="list_targets", args={"health": "down"}))
    # Most important first, so trimming to the budget keeps what matters; a few calls stay for
    # the follow-up round.
    return Plan(calls=calls[: max(0, request.remaining_tool_calls - FOLLOW_UP_RESERVE)])


def plan_followup(request: PlanRequest) -> Plan:
    """Third round: for each table sampled, count rows per state-like column and read the newest rows."""
    if request.route.route != "complex":
        return Plan()
    # Round 2's errors may implicate a database only now (repeats of round 2's calls are dropped).
    # Events and mentions are read back to before the first move round 2 saw: the change behind it.
    began = [a.change_at for a in request.digest.anomalies]
    window = change_window(request.route.resolved_query, request.now, began, CHANGE_LEAD)
    calls = introspection_calls(request) + _event_calls(request, window) + _reporter_calls(request, window)
    calls += _mention_calls(request, window, _before_settled(began, request.now))
    calls += _setting_calls(request, window)
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
    # Last: what the budget leaves after the calls that look for a cause.
    calls += _rhythm_calls(request)
    return Plan(calls=calls[: request.remaining_tool_calls])


def _rhythm_calls(request: PlanRequest) -> list[PlannedCall]:
    """The reads behind round 2's strongest moves again, over the same window a day earlier: a move
    the series made at the same hour the day before is its daily rhythm (the digest compares them)."""
    if "read_metric" not in request.tool_names:
        return []
    reads = {e.id: e for e in request.evidence if e.tool == "read_metric" and not e.args.get("days_before")}
    calls: list[PlannedCall] = []
    for anomaly in sorted(request.digest.anomalies, key=lambda a: -a.score):
        ref = reads.pop(anomaly.evidence_id, None)  # one earlier read per read, however many moves it holds
        if ref is not None and len(calls) < MAX_RHYTHM_READS:
            args = {key: ref.args[key] for key in _REREAD_ARGS if key in ref.args}
            calls.append(PlannedCall(tool="read_metric", args=args | {"days_before": 1}))
    return calls


def _event_calls(request: PlanRequest, minutes: int) -> list[PlannedCall]:
    """Info lines (platform events: failovers, parameter changes, deploys) of log streams whose system
    showed a metric change in round 2 but was no focus service, so round 2 read only its errors."""
    focus = set(focus_services(request))
    streams = [s for s in request.discovery.log_services if s not in focus]
    moved = [a.service for a in sorted(request.digest.anomalies, key=lambda a: -a.score) if a.service]
    picked = [
        stream for stream in streams if any(name == stream or name.startswith(f"{stream}-") for name in moved)
    ][:MAX_EVENT_STREAMS]
    window = {"window_minutes": minutes}
    return [PlannedCall(tool="query_logs", args={"service": s, "level": "info", **window}) for s in picked]


def _reporter_calls(request: PlanRequest, minutes: int) -> list[PlannedCall]:
    """Info lines of streams whose errors report on another system (an orchestrator's "Back-off
    restarting failed container x in pod x-5f7b"): the same reporter told what changed before it
    ("Pulling image .../x:3.8.0", "Scaled up replica set x-5f7b"), in lines no error read returns."""
    streams = set(request.discovery.log_services)
    others = {p.service for p in request.digest.log_patterns if p.service}
    reporters: list[str] = []
    for pattern in request.digest.log_patterns:
        if pattern.service not in streams or (pattern.level or "").lower() not in ("error", "warn"):
            continue
        text = f"{pattern.template} {pattern.example}".lower()
        if any(
            o != pattern.service and len(o) >= MIN_MENTIONED_CHARS and reports_about(text, o) for o in others
        ):
            reporters.append(pattern.service)
    window = {"window_minutes": minutes}
    picked = list(dict.fromkeys(reporters))[:MAX_EVENT_STREAMS]
    return [PlannedCall(tool="query_logs", args={"service": s, "level": "info", **window}) for s in picked]


def _setting_calls(request: PlanRequest, minutes: int) -> list[PlannedCall]:
    """Info lines naming a setting the most frequent errors quote ("server reached pm.max_children
    setting"): a configuration agent's diff of it is the change behind them (`rules.setting_changes`)."""
    errors = sorted(
        (p for p in request.digest.log_patterns if (p.level or "").lower() in ("error", "warn")),
        key=lambda p: -p.count,
    )
    # The first of each pattern before the second of any: one pattern's many fields crowd out no other.
    said = [found[0] for p in errors[:SETTING_PATTERNS] if (found := settings_cited(p.example))]
    window = {"window_minutes": minutes, "first_lines": True}
    return [
        PlannedCall(tool="query_logs", args={"contains": setting, "level": "info", **window})
        for setting in list(dict.fromkeys(said))[:MAX_SETTINGS]
    ]


def _before_settled(began: Sequence[str | None], now: str) -> str | None:
    """Shortly after the series moved: a change behind the trouble came before it, and the lines
    after it (a proxy's 500 access lines naming the failing system) would crowd out a deploy tool's
    one line about it. The moves are the burst most of them came in (a straggler close to now, a
    stray one hours before, are not when the trouble began). None when no series moved or that burst
    is close to now."""
    moments = sorted(t for t in (parse_instant(b) for b in began if b) if t is not None)
    moment = parse_instant(now)
    if not moments or moment is None:
        return None
    bursts: list[list[datetime]] = [[moments[0]]]
    for at in moments[1:]:
        if at - bursts[-1][-1] <= 2 * SETTLED_AFTER:
            bursts[-1].append(at)
        else:
            bursts.append([at])
    settled = max(bursts, key=len)[-1]  # the first of the largest bursts
    if moment - settled <= 2 * SETTLED_AFTER:
        return None
    return iso_utc(settled + SETTLED_AFTER)


def _mention_calls(request: PlanRequest, minutes: int, until: str | None = None) -> list[PlannedCall]:
    """Lines of any stream that name the systems logging the most errors: a deploy tool's or an
    orchestrator's events about them ("Updated image ... application=X", "Deployment/X: Scaled up
    replica set") live in the platform's streams, not in theirs. Read up to `until` when given."""
    errors: dict[str, int] = {}
    for pattern in request.digest.log_patterns:
        if pattern.service and (pattern.level or "").lower() in ("error", "warn"):
            errors[pattern.service] = errors.get(pattern.service, 0) + pattern.count
    busiest = sorted(errors, key=lambda name: -errors[name])[:MAX_MENTIONED]
    # And the moving systems those errors name ("not committed table=orders-book"): a cloud audit
    # log's "UpdateTable ... orders-book" is the event behind them.
    said = " ".join(
        f"{p.template} {p.example}".lower() for p in request.digest.log_patterns if p.service in busiest
    )
    # A moving series' system by its resource or the machine it was scraped at (an exporter's
    # `job=kvcache instance=kv-2` is known to its callers as kv-2), before the job that scraped it.
    jobs = {a.service for a in request.digest.anomalies if a.service}
    names = {
        n for a in request.digest.anomalies for n in (resource_name(a.labels), machine_of(a.labels)) if n
    }
    moving = sorted(names - set(busiest)) + sorted(jobs - names - set(busiest))
    named = [name for name in moving if mentions(said, name)][:MAX_MENTIONED]
    window: dict[str, Any] = {"window_minutes": minutes, "first_lines": True}
    if until is not None:
        window["until"] = until
    # Not its own lines: a busy system's own info lines would crowd out the one a deploy tool wrote.
    return [
        PlannedCall(tool="query_logs", args={"contains": name, "level": "info", "other_than": name, **window})
        for name in [*busiest, *named]
        if len(name) >= MIN_MENTIONED_CHARS
    ]


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


def _log_calls(focus: Sequence[str], minutes: int) -> list[PlannedCall]:
    # With the window's first lines too: when the trouble began, which a capped newest-first read
    # of a busy stream would put at the cap instead.
    window = {"window_minutes": minutes, "first_lines": True}
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


def _metric_calls(request: PlanRequest, minutes: int) -> list[PlannedCall]:
    """Discovery's typed reads first (firing alerts' metrics, then the question's), the alerts'
    current values as instant queries, then other names with troublesome-sounding ones first."""
    window = {"window_minutes": minutes}
    reads = list(request.discovery.reads)[:MAX_METRIC_QUERIES]
    calls = [PlannedCall(tool="read_metric", args={**_read_args(read), **window}) for read in reads]
    calls += [
        PlannedCall(tool="query_promql_instant", args={"promql": str(read["promql"])})
        for read in reads
        if str(read.get("reason", "")).startswith("alert") and read.get("promql")
    ][:MAX_INSTANT_QUERIES]
    chosen = {str(read.get("metric")) for read in reads}
    names = sorted(request.discovery.metrics, key=lambda name: (not BAD_SIGNAL.search(name), name))
    for name in names:
        if len(chosen) >= MAX_METRIC_QUERIES:
            break
        if name in chosen or not _IDENTIFIER.match(name.replace(":", "_")):
            continue
        chosen.add(name)
        calls.append(PlannedCall(tool="read_metric", args={"metric": name, **window}))
    return calls


def _read_args(read: Mapping[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {"metric": str(read.get("metric", ""))}
    if read.get("kind"):
        args["kind"] = read["kind"]
    if read.get("matchers"):
        args["matchers"] = dict(read["matchers"])
    if read.get("rate_seconds"):
        args["rate_seconds"] = read["rate_seconds"]
    if read.get("filters"):
        args["filters"] = list(read["filters"])
    return args


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
