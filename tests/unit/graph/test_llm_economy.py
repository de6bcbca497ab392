"""Where the LLM analyst spends model calls, and the bounded views its prompts carry."""

from __future__ import annotations

from graph.analysts.base import Discovery, EvidenceRef, PlanRequest, Route, RouteRequest, Turn
from graph.analysts.llm.analyst import asks_model_to_plan, unavailable_tools
from graph.analysts.llm.payload import digest_view, discovery_view, evidence_view
from graph.analysts.llm.prompts import PLAN_TOOLS
from graph.analysts.rules.route import confident_route
from tools.facts import Digest, LogPattern, MetricAnomaly

COMPLEX = Route(route="complex", resolved_query="why is checkout slow?")


def _sure(query: str, *, history: tuple[Turn, ...] = (), flow: str = "CHAT") -> Route | None:
    return confident_route(RouteRequest(query=query, flow=flow, history=history))


def test_rules_route_plain_symptoms_greetings_and_scans_without_the_model() -> None:
    assert (route := _sure("Why is checkout slow?")) is not None and route.route == "complex"
    assert (route := _sure("Hello!")) is not None and route.intent == "greeting"
    assert _sure("summarise the system", flow="AI_OPS") is not None


def test_unclear_questions_how_tos_and_follow_ups_are_left_to_the_model() -> None:
    assert _sure("Is the api in trouble because of the db?") is None
    assert _sure("How do I roll back a bad deploy?") is None
    previous = (Turn(query="Why is checkout slow?", root_cause_service="payment"),)
    assert _sure("why did that start failing?", history=previous) is None


def test_only_the_targeted_round_of_a_diagnosis_asks_the_model() -> None:
    def request(round_: int, route: Route = COMPLEX) -> PlanRequest:
        return PlanRequest(route=route, round=round_, tool_names=[], datasources=[], remaining_tool_calls=9)

    assert [asks_model_to_plan(request(n)) for n in (1, 2, 3)] == [False, True, False]
    simple = Route(route="simple", intent="how_to", resolved_query="how?")
    assert not asks_model_to_plan(request(2, simple))


def test_views_are_capped_and_facts_stand_for_their_evidence() -> None:
    patterns = [LogPattern(f"logs-{n}", "api", "error", "x <*>", n, "t0", "t1", "y" * 500) for n in range(30)]
    view = digest_view(Digest(log_patterns=patterns), per_kind=5)
    assert [p["count"] for p in view["log_patterns"]] == [29, 28, 27, 26, 25]
    assert all(len(p["example"]) <= 160 for p in view["log_patterns"])
    # A line of the pattern stands for its template; a false flag is left out like an empty value.
    assert not any("template" in p or "steady" in p for p in view["log_patterns"])
    refs = [
        EvidenceRef("logs-29", "logs", "query_logs", "Logs", "OK", "s" * 400),
        EvidenceRef("logs-99", "logs", "query_logs", "Logs", "OK", "no pattern found"),
        EvidenceRef("metrics-1", "metrics", "list_metrics", "Series", "OK", "names"),
        # A read of the day before: it says something only as a routine move of the digest.
        EvidenceRef("metrics-2", "metrics", "read_metric", "x", "EMPTY", "0 series", {"days_before": 1}),
    ]
    assert evidence_view(refs, view) == ["logs-29 query_logs OK", "logs-99 query_logs OK: no pattern found"]
    assert set(view) == {"log_patterns"}  # kinds with no fact are not sent
    found = discovery_view(Discovery(metrics={"latency": [{"service": "a"}, {"service": "a"}, {"job": "b"}]}))
    assert found["metrics"] == {"latency": ["a", "b"]}


def test_readings_are_sent_rounded_and_whole_ones_as_integers() -> None:
    jump = MetricAnomaly("metrics-1", "latency", {}, "api", 0.200912, 37.0, 1e6, None, "up", 184.16, 9.0)
    (view,) = digest_view(Digest(anomalies=[jump]))["anomalies"]
    assert (view["baseline"], view["recent"], view["peak"], view["ratio"]) == (0.2009, 37, 1_000_000, 184.2)
    assert "score" not in view and "change_at" not in view


def test_the_plan_payload_names_only_the_listed_tools_a_run_lacks() -> None:
    assert unavailable_tools(["list_metrics", *PLAN_TOOLS]) == {}
    assert unavailable_tools([name for name in PLAN_TOOLS if name != "query_mysql"]) == {
        "unavailable_tools": ["query_mysql"]
    }
