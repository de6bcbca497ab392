"""The rule-based router and planner on plain requests."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import Discovery, EvidenceRef, PlanRequest, Route, RouteRequest, Turn
from graph.analysts.rules.plan import focus_services, plan_discovery, plan_followup, plan_targeted
from graph.analysts.rules.route import route_question
from tests.unit.graph.digest_facts import lines
from tools.facts import AlertGroup, Digest, MetricAnomaly, SqlSummary

TOOLS = [
    "list_alerts",
    "list_metrics",
    "query_promql",
    "list_log_streams",
    "query_logs",
    "list_tables",
    "query_mysql",
    "list_runbooks",
    "search_runbooks",
    "search_cases",
]


def _route(query: str, history: tuple[Turn, ...] = (), flow: str = "CHAT") -> Route:
    return route_question(RouteRequest(query=query, flow=flow, history=history))


def test_router_sends_greetings_and_how_to_questions_to_the_short_path() -> None:
    assert _route("Hello there!").intent == "greeting"
    assert _route("How do I roll back a bad deploy?").route == "simple"
    assert _route("Where is the runbook for disk cleanup?").route == "simple"


def test_router_sends_symptoms_to_diagnosis() -> None:
    assert _route("Why is checkout slow?").route == "complex"
    assert _route("orders are stuck, what is holding the db connections?").route == "complex"
    assert _route("hello", flow="AI_OPS").route == "complex"


def test_router_resolves_follow_ups_against_the_previous_turn() -> None:
    history = (Turn(query="Why is checkout slow?", root_cause_service="payment"),)
    why = _route("why did that start?", history)
    assert why.route == "complex" and "payment" in why.services
    assert "payment" in why.resolved_query
    other = _route("and what about inventory?", history)
    assert other.services == ["inventory"]


def _request(
    round_: int,
    *,
    digest: Digest | None = None,
    discovery: Discovery | None = None,
    query: str = "Why is the storefront slow?",
) -> PlanRequest:
    route = Route(route="complex", resolved_query=query)
    return PlanRequest(
        route=route,
        round=round_,
        tool_names=TOOLS,
        datasources=["shop"],
        remaining_tool_calls=40,
        digest=digest or Digest(),
        discovery=discovery or Discovery(),
    )


def test_first_round_discovers_every_source() -> None:
    tools = [call.tool for call in plan_discovery(_request(1)).calls]
    assert tools[:3] == ["list_alerts", "list_metrics", "list_log_streams"]
    assert {"list_runbooks", "search_runbooks", "search_cases", "list_tables"} <= set(tools)


def test_second_round_targets_named_and_alerting_services() -> None:
    alert = AlertGroup(
        evidence_id="alerts-1",
        alertname="QueueBacklog",
        service="billing",
        severity="critical",
        status="firing",
        count=1,
        instances=[],
        first_started=None,
        summary="backlog",
    )
    discovery = Discovery(
        metrics={"queue_depth": [{"service": "billing"}]},
        tables={"shop": ["jobs"]},
        services=["storefront-web", "billing"],
    )
    request = _request(2, digest=Digest(alert_groups=[alert]), discovery=discovery)
    assert focus_services(request) == ["storefront-web", "billing"]
    calls = plan_targeted(request).calls
    assert {"tool": "read_metric", "metric": "queue_depth"} in [
        {"tool": c.tool, "metric": c.args.get("metric")} for c in calls
    ]
    assert ("query_logs", "billing", "error") in [
        (c.tool, c.args.get("service"), c.args.get("level")) for c in calls
    ]
    assert any(c.args.get("statement") == "SELECT * FROM jobs LIMIT 50" for c in calls)


def test_third_round_counts_rows_per_state_column() -> None:
    sample = SqlSummary(
        evidence_id="sql-2",
        datasource="shop",
        statement="SELECT * FROM jobs LIMIT 50",
        row_count=50,
        columns=["id", "state", "updated_at"],
        highlights=[],
    )
    statements = [c.args["statement"] for c in plan_followup(_request(3, digest=Digest(sql=[sample]))).calls]
    assert statements == [
        "SELECT state, COUNT(*) AS row_count FROM jobs GROUP BY state ORDER BY row_count DESC LIMIT 20",
        "SELECT * FROM jobs ORDER BY updated_at DESC LIMIT 20",
    ]


def test_a_question_about_hours_ago_reads_the_alert_history_further_back() -> None:
    def history(query: str) -> dict[str, object]:
        request = replace(_request(1, query=query), tool_names=[*TOOLS, "alert_history"])
        return next(c.args for c in plan_discovery(request).calls if c.tool == "alert_history")

    assert history("We got paged overnight for DiskBacklog. Anything still wrong?") == {"window_minutes": 720}
    assert history("what fired yesterday on the db?") == {"window_minutes": 2880}
    assert history("why is the storefront slow?") == {}


def test_third_round_reads_the_strongest_moves_again_a_day_earlier() -> None:
    """A 120-minute window cannot tell a daily peak from an incident; the same read a day earlier can."""

    def moved(evidence_id: str, score: float) -> MetricAnomaly:
        return MetricAnomaly(
            evidence_id,
            "backend_sessions",
            {"proxy": "web"},
            "lb",
            40,
            300,
            310,
            "2030-01-01T09:00:00Z",
            "up",
            7.5,
            score,
        )

    def read(evidence_id: str, **query: object) -> EvidenceRef:
        args = {"metric": "backend_sessions", "kind": "gauge", "promql": "backend_sessions", **query}
        return EvidenceRef(evidence_id, "metrics", "read_metric", "t", "OK", "s", args)

    reads = [read("metrics-1", matchers={"proxy": "web"}, window_minutes=120), read("metrics-2")]
    digest = Digest(anomalies=[moved("metrics-2", 3.0), moved("metrics-1", 9.0), moved("metrics-1", 8.0)])
    request = replace(_request(3, digest=digest), tool_names=[*TOOLS, "read_metric"], evidence=reads)
    calls = [c for c in plan_followup(request).calls if c.tool == "read_metric"]
    assert [c.args for c in calls] == [
        {
            "metric": "backend_sessions",
            "kind": "gauge",
            "matchers": {"proxy": "web"},
            "window_minutes": 120,
            "days_before": 1,
        },
        {"metric": "backend_sessions", "kind": "gauge", "days_before": 1},
    ]
    # A read of the past is never read again further back.
    again = replace(
        request,
        evidence=[read("metrics-1", days_before=1)],
        digest=Digest(anomalies=[moved("metrics-1", 9.0)]),
    )
    assert not [c for c in plan_followup(again).calls if c.tool == "read_metric"]


def test_follow_up_reads_the_info_lines_of_a_stream_reporting_on_another_system() -> None:
    """An orchestrator's "Back-off restarting ... in pod x-5f7b" says it reports on x: its info lines
    ("Pulling image .../x:3.8.0") hold the change no error read returns."""
    backoff = "Back-off restarting failed container quote-api in pod quote-api-5f7b9d8c4d-x8q2n_pricing(0f7c)"
    digest = Digest(
        log_patterns=[
            lines("cluster-events", backoff, "2026-03-01T10:05:00Z", level="warn"),
            lines("quote-api", "panic: assignment to entry in nil map", "2026-03-01T10:05:00Z"),
        ]
    )
    request = _request(3, digest=digest, discovery=Discovery(log_services=["cluster-events", "quote-api"]))
    reads = [c.args for c in plan_followup(request).calls if c.tool == "query_logs"]
    assert any(args.get("service") == "cluster-events" and args.get("level") == "info" for args in reads)
    assert not any(args.get("service") == "quote-api" and args.get("level") == "info" for args in reads)


def test_mentions_are_read_up_to_just_after_the_burst_most_series_moved_in() -> None:
    """Sixteen series moved around 10:05 and three stragglers at 10:46, close to now: the read of lines
    naming the failing system ends at 10:11, before its callers' traffic lines crowd out the one line
    a deploy tool wrote at 10:02 (a read ending at the stragglers would not end before now at all)."""

    def moved(at: str) -> MetricAnomaly:
        return MetricAnomaly(
            "metrics-1", "envoy_pending", {"pod": "web-1"}, "fares", 0, 64, 64, at, "up", 9.0, 9.0
        )

    burst = [f"2030-01-01T10:0{minute}:00Z" for minute in (4, 5, 5, 5, 6)]
    stragglers = ["2030-01-01T10:46:00Z"] * 3
    anomalies = [moved(at) for at in ["2030-01-01T09:42:00Z", *burst, *stragglers]]
    errors = lines("web", "fare quote failed upstream=fares status=503", "2030-01-01T10:05:00Z")
    digest = Digest(anomalies=anomalies, log_patterns=[errors])
    request = replace(_request(3, digest=digest), now="2030-01-01T10:48:00Z")
    mentions = [
        c.args for c in plan_followup(request).calls if c.tool == "query_logs" and "other_than" in c.args
    ]
    assert mentions and {args.get("until") for args in mentions} == {"2030-01-01T10:11:00Z"}
