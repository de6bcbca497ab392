"""Which questions are lookups: the rules read a data question's grammar (verbs, quoted phrases, N lines,
levels, labels, a PromQL expression or a metric asked for now), never the names of a world."""

from __future__ import annotations

from typing import Any

import pytest

from graph.analysts.base import PlanRequest, Route, RouteRequest, Turn
from graph.analysts.rules.lookup import lookup_ask, plan_lookup
from graph.analysts.rules.route import confident_route, route_question

# (question, tool, arguments the call must carry)
LOOKUPS: list[tuple[str, str, dict[str, Any]]] = [
    # "whats" as typed, and a typographic apostrophe, ask the same.
    (
        "whats the current ActiveMessages on orders-inbound",
        "query_promql_instant",
        {"promql": "ActiveMessages"},
    ),
    ("what\u2019s node_load1 on db-2 now?", "query_promql_instant", {"promql": "node_load1"}),
    # A probe's target fails in its result (`probe_success 0`), not in its scrape: any check's
    # `..._success` at 0 is listed beside the targets whose scrape is down.
    (
        "which blackbox targets are failing right now?",
        "query_promql_instant",
        {"promql": '{__name__=~".+_success", collector=""} == 0'},
    ),
    ("which blackbox targets are failing right now?", "list_targets", {"health": "down"}),
    # One status ("504s") is a status filter, a path the text to find, "X access logs" the stream X.
    (
        "grep traefik access logs for 504s on /api/v2/quotes, last 5",
        "query_logs",
        {"service": "traefik", "status_class": "504", "contains": "/api/v2/quotes", "limit": 5},
    ),
    # "502 errors" are a status, not error-level lines nor 502 of them.
    (
        "show 502 errors from edge-proxy",
        "query_logs",
        {"service": "edge-proxy", "status_class": "502", "limit": 100},
    ),
    # A metric's name with nothing but where and when: its value now.
    (
        "ApproximateAgeOfOldestMessage for appt-reminders rn?",
        "query_promql_instant",
        {"promql": "ApproximateAgeOfOldestMessage"},
    ),
    # Things in an alerting state, whatever they are called, are what the firing alerts say.
    ("Which Consul health checks are critical right now?", "list_alerts", {}),
    ("which queue consumers are currently failing?", "list_alerts", {}),
    ("whats firing right now?", "list_alerts", {}),
    # A metric's name asked on a system is its value now; its peak over a window is a range read.
    (
        "What is broker_resident_memory_limit_bytes on mq-2?",
        "query_promql_instant",
        {"promql": "broker_resident_memory_limit_bytes"},
    ),
    (
        "what was the peak of node_load1 on pg-main-01 over the last 12 hours?",
        "query_promql",
        {"promql": "node_load1", "window_minutes": 720},
    ),
    # A possessive's apostrophe opens no quote: the quoted words are what to grep for.
    (
        "grep claims-api's logs for 'panic' and show me the last 5",
        "query_logs",
        {"contains": "panic", "limit": 5},
    ),
    (
        "What was the highest value of api_request_duration_99p for shelf-api over the last 24 hours?",
        "query_promql",
        {"promql": "api_request_duration_99p", "window_minutes": 1440},
    ),
    (
        "show me the 3 most recent TCP_DENIED entries in sieve's access log",
        "query_logs",
        {"contains": "TCP_DENIED"},
    ),
    (
        "pull the last 3 ERROR lines ripple-enricher logged",
        "query_logs",
        {"service": "ripple-enricher", "limit": 3},
    ),
    ("haproxy on lb-1: which backends have servers down atm?", "list_alerts", {}),
    (
        "pull the RDS events for billing-aurora from the last hour",
        "query_logs",
        {"service": "billing-aurora"},
    ),
    # "grep X's logs for Y": the phrase after "for", the stream the possessive.
    (
        "grep basket-gw's logs for DeadlineExceeded and give me the cart ids",
        "query_logs",
        {"service": "basket-gw", "contains": "DeadlineExceeded"},
    ),
    # An aggregation written with its grouping first, after "run" or "run this:"; a selector's quoted
    # value is the expression's own, no phrase to grep for.
    ("run sum by (job) (up)", "query_promql_instant", {"promql": "sum by (job) (up)"}),
    (
        'run this: max by (instance) (fpm_listen_queue{pool="www"})',
        "query_promql_instant",
        {"promql": 'max by (instance) (fpm_listen_queue{pool="www"})'},
    ),
    # The lines named with no verb, and "hits" counted like lines.
    (
        "last 3 warnings from notify-svc?",
        "query_logs",
        {"limit": 3, "service": "notify-svc", "level": "warn"},
    ),
    (
        "grep the tracker logs for 'only 1 alive' and give me the 3 most recent hits",
        "query_logs",
        {"limit": 3, "service": "tracker", "contains": "only 1 alive"},
    ),
    # "any X down?" asks for the list; "on <machine>" beside a service filters its lines by host.
    ("any scrape targets down?", "list_targets", {"health": "down"}),
    (
        "show me the last 3 lines from pricing-svc on pricing-01 containing 'Pause Full'",
        "query_logs",
        {"limit": 3, "service": "pricing-svc", "labels": {"host": "pricing-01"}, "contains": "Pause Full"},
    ),
    # A metric's name right after "what is", asked for now.
    ("What is node_load1 on nas-3 right now?", "query_promql_instant", {"promql": "node_load1"}),
    (
        "What's DCGM_FI_DEV_GPU_TEMP for gpu 3 at the moment?",
        "query_promql_instant",
        {"promql": "DCGM_FI_DEV_GPU_TEMP"},
    ),
    (
        "the last 20 lines containing ERROR from api in namespace shop",
        "query_logs",
        {"limit": 20, "service": "api", "labels": {"namespace": "shop"}, "level": "error"},
    ),
    (
        "Post the last 20 lines containing ERROR from pollen in namespace garden.",
        "query_logs",
        {"limit": 20, "service": "pollen", "labels": {"namespace": "garden"}},
    ),
    ("Show the errors in the payment logs", "query_logs", {"service": "payment", "level": "error"}),
    (
        "show me the errors in ripeness-scorer's logs.",
        "query_logs",
        {"service": "ripeness-scorer", "level": "error"},
    ),
    (
        "Find 'connection refused' in the gateway logs",
        "query_logs",
        {"service": "gateway", "contains": "connection refused"},
    ),
    ("grep timeout in payment logs", "query_logs", {"service": "payment", "contains": "timeout"}),
    (
        "List the WARN lines from census in the last hour.",
        "query_logs",
        {"service": "census", "level": "warn", "window_minutes": 60},
    ),
    (
        "Can you show me the last 50 log lines of inventory?",
        "query_logs",
        {"service": "inventory", "limit": 50},
    ),
    (
        "show logs for checkout in the last 30 minutes",
        "query_logs",
        {"service": "checkout", "window_minutes": 30},
    ),
    ("tail the inventory logs", "query_logs", {"service": "inventory"}),
    (
        "show errors from pod web-7f in namespace prod",
        "query_logs",
        {"labels": {"pod": "web-7f", "namespace": "prod"}},
    ),
    ("Which alerts are firing?", "list_alerts", {}),
    ("which alerts are firing for checkout?", "list_alerts", {"service": "checkout"}),
    ("List all alerts", "list_alerts", {}),
    ("Which targets are down?", "list_targets", {"health": "down"}),
    ("list scrape targets", "list_targets", {}),
    ("please list the alerting rules", "list_rules", {"kind": "alerting"}),
    (
        "What is the value of node_memory_MemAvailable_bytes?",
        "query_promql_instant",
        {"promql": "node_memory_MemAvailable_bytes"},
    ),
    (
        'What\'s the current value of http_requests_total{code="500"}?',
        "query_promql_instant",
        {"promql": 'http_requests_total{code="500"}'},
    ),
    (
        "Show the current FreeStorageSpace of every DB instance.",
        "query_promql_instant",
        {"promql": "FreeStorageSpace"},
    ),
    (
        "What is the value of ReplicaLag for db-replica-1 now?",
        "query_promql_instant",
        {"promql": "ReplicaLag"},
    ),
    (
        "Run this PromQL: sum by (job) (rate(x_total[5m]))",
        "query_promql_instant",
        {"promql": "sum by (job) (rate(x_total[5m]))"},
    ),
    (
        "run this promql over the last 30 minutes: rate(x_total[5m])",
        "query_promql",
        {"promql": "rate(x_total[5m])", "window_minutes": 30},
    ),
    ("show `up == 0`", "query_promql_instant", {"promql": "up == 0"}),
    (
        "What errors did checkout log in the last 30 minutes?",
        "query_logs",
        {"service": "checkout", "level": "error", "window_minutes": 30},
    ),
    ("What errors is checkout throwing?", "query_logs", {"service": "checkout", "level": "error"}),
    ("Are there any errors in the payment logs?", "query_logs", {"service": "payment", "level": "error"}),
    (
        "How many errors did payment log in the last hour?",
        "count_logs",
        {"service": "payment", "level": "error", "window_minutes": 60},
    ),
    (
        "How many 5xx did the edge proxy log in the last 15 minutes?",
        "count_logs",
        {"service": "proxy", "status_class": "5xx", "window_minutes": 15},
    ),
    (
        "How many 'connection reset by peer' errors did billing-api log since 03:00?",
        "count_logs",
        {"service": "billing-api", "contains": "connection reset by peer"},
    ),
    ("Show the 5xx lines nginx logged", "query_logs", {"status_class": "5xx"}),
    (
        "Print the 5 most recent warnings from gateway",
        "query_logs",
        {"service": "gateway", "level": "warn", "limit": 5},
    ),
    (
        "grep for OutOfMemoryError in orchard logs",
        "query_logs",
        {"service": "orchard", "contains": "OutOfMemoryError"},
    ),
    ("search the logs of api for 'timeout'", "query_logs", {"service": "api", "contains": "timeout"}),
    ("Any alerts firing?", "list_alerts", {}),
    ("Is there any alert for redis?", "list_alerts", {"service": "redis"}),
    ("Query prometheus for up == 0", "query_promql_instant", {"promql": "up == 0"}),
    (
        "Evaluate sum(rate(x_total[5m])) by (job)",
        "query_promql_instant",
        {"promql": "sum(rate(x_total[5m])) by (job)"},
    ),
    # Alerts over time: the history holds the resolved ones, filtered by any label value.
    ("Which alerts have fired for nats-2 this morning?", "alert_history", {"about": "nats-2"}),
    # Quotes inside the expression are its own, not a quoted expression.
    (
        'Run this PromQL: open_connections{protocol="websocket"}',
        "query_promql_instant",
        {"promql": 'open_connections{protocol="websocket"}'},
    ),
    # A vendor metric asked for "now" by its name alone.
    (
        "What is the current ApproximateAgeOfOldestMessage of the queue orders-dlq?",
        "query_promql_instant",
        {"promql": "ApproximateAgeOfOldestMessage"},
    ),
    # A value asked for now in plain words: every metric whose name holds them in order.
    (
        "what's the current replication lag of mongo-2 in seconds",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*(replication.*lag|lag.*replication).*"}'},
    ),
    (
        "memcached uptime on pw-cache-01 right now?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*(memcached.*uptime|uptime.*memcached).*"}'},
    ),
    # Its words after "the value of" or "the number of", in any order of the metric's name.
    (
        "What is the current value of connected clients on kv-cache-3?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*(connected.*clients|clients.*connected).*"}'},
    ),
    (
        "What's the current number of pending messages for the picker consumer?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*(pending.*messages|messages.*pending).*"}'},
    ),
    (
        "What's the current number of retries for the billing worker?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*retries.*"}'},
    ),
    ("current value of queue_depth for orders.dlq?", "query_promql_instant", {"promql": "queue_depth"}),
    # A measurement asked for in the present tense is its value now, without "now".
    (
        "what is p99 latency of order-writer?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*(p99.*latency|latency.*p99).*"}'},
    ),
    # Which things were done, where: the lines that say so, on that node.
    (
        "Which pods were evicted from node tansy-wk-07?",
        "query_logs",
        {"contains": "evict", "labels": {"node": "tansy-wk-07"}},  # the stem: "Evicted", "evicting"
    ),
    ("which jobs got OOMKilled in namespace batch?", "query_logs", {"contains": "OOMKill"}),
    # A count, then the words saying which log.
    ("last 10 slow query log entries from mysql pls", "query_logs", {"service": "mysql", "limit": 10}),
    # "How many" with the noun a metric's name holds, for a named system.
    (
        "How many restarts has pod media-worker-6f9c7d8b5-x2kqp had?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*restarts.*"}'},
    ),
    (
        "How many backends are connected to the instance fares-db-main right now?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*backends.*"}'},
    ),
    # Per second: a counter's rate; a queue's messages are what it holds, not log messages.
    (
        "How many evictions per second is cache-02 doing right now?",
        "query_promql_instant",
        {"promql": 'rate({__name__=~"(?i).*evictions.*"}[5m])'},
    ),
    (
        "How many messages are visible in queue parcel-events right now?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*messages.*"}'},
    ),
    # A path after "on" still names what is asked about.
    (
        "What is the free space on /var/lib/postgresql on pg-02 right now?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*(free.*space|space.*free).*"}'},
    ),
    # "List the X that <done>": the lines saying so, by the word's stem, where the question says.
    (
        "List the pods in namespace kube-system that restarted in the last hour.",
        "query_logs",
        {"contains": "restart", "labels": {"namespace": "kube-system"}, "window_minutes": 60},
    ),
]

# Questions that ask for a judgement, not rows: they stay diagnoses ("explain ..." a short answer).
NOT_LOOKUPS = [
    # A system named like a data verb ("search-api") asks no search.
    "search-api hpa was pinned at max replicas this morning. is search degraded or anything?",
    "CrashLoopBackOff on pay-worker?",  # a state, not a metric
    "we got paged for the backlog on the orders sub around 9. are we still on fire or is it fine now?",
    "saw the cache cpu jump at 10:20, anything to worry about?",
    "Why is checkout slow?",
    "What is node_filesystem_avail_bytes?",  # may ask what the metric means: no system, no "now"
    "what is the peak season for the checkout service?",
    "show me why payment is failing",
    "find the root cause of the checkout errors",
    "What is the issue with job node-exporter?",
    "What is wrong with payment?",
    "Is the api in trouble because of the db?",
    "checkout is returning 500s",
    "Alert HighLatency is firing on checkout",
    "why is the alert on redis firing?",
    "Which alerts are firing on payment and why?",
    "investigate the errors in payment",
    "list the reasons checkout fails",
    "find out what happened to payment",
    "Which service is causing the errors?",
    "explain the errors in the gateway logs",
    "What errors are causing the outage?",
    "Are there any problems with payment?",
    "Why did payment log errors?",
    "What is the current status of checkout?",
    "Which checks are critical and why?",
    "what's the current state of checkout?",
    # A symptom told beside a value's words is a diagnosis.
    "login for customers is failing now",
    "disk full on node-3 now, help",
    "high cpu on db-1 now",
    "timeouts in payment now",
    "error level in checkout is elevated",
    "is checkout ok right now?",
    "whats going on with payment now",
    "what's the health of payment right now?",
    "Is anything on fire right now on the quoting platform?",
    # A count of a symptom, or of no named system, asks whether, not which value.
    "How many pods are failing in ns-1?",
    "How many people are on call?",
    # Without a word for now or a measurement, "what is X of Y" asks for a judgement.
    "what is the impact of the outage on checkout?",
    "what is the cause of the errors on checkout?",
]


@pytest.mark.parametrize(("question", "tool", "args"), LOOKUPS)
def test_a_data_question_is_a_lookup_with_the_questions_filters(
    question: str, tool: str, args: dict[str, Any]
) -> None:
    ask = lookup_ask(question)
    assert ask is not None, question
    call = next(c for c in ask.calls if c.tool == tool)
    assert args.items() <= call.args.items(), call.args
    route = route_question(RouteRequest(query=question, flow="CHAT"))
    assert route.route == "lookup" and route.intent == "lookup"
    assert confident_route(RouteRequest(query=question, flow="CHAT")) == route  # no model call needed


@pytest.mark.parametrize("question", NOT_LOOKUPS)
def test_a_question_asking_for_a_judgement_stays_a_diagnosis(question: str) -> None:
    assert lookup_ask(question) is None
    expected = "simple" if question.startswith("explain") else "complex"
    assert route_question(RouteRequest(query=question, flow="CHAT")).route == expected


def test_containing_a_level_word_in_capitals_reads_the_level_and_the_text() -> None:
    ask = lookup_ask("Post the last 20 lines containing ERROR from api")
    assert ask is not None
    assert [(c.args.get("level"), c.args.get("contains")) for c in ask.calls] == [
        ("error", None),
        (None, "ERROR"),
    ]


def test_a_metric_named_beside_a_system_names_that_system() -> None:
    ask = lookup_ask("What is the value of ReplicaLag for db-replica-1 now?")
    assert ask is not None and ask.services == ("db-replica-1",)
    route = route_question(
        RouteRequest(query="What is the value of ReplicaLag for db-replica-1 now?", flow="CHAT")
    )
    assert "db-replica-1" in route.services


def test_a_name_like_word_names_the_system_over_the_first_word_after_of() -> None:
    ask = lookup_ask("What is the current ApproximateAgeOfOldestMessage of the SQS queue orders-dlq?")
    assert ask is not None and ask.services == ("orders-dlq",)


def test_an_aiops_scan_is_never_a_lookup() -> None:
    assert route_question(RouteRequest(query="list the firing alerts", flow="AI_OPS")).route == "complex"


def _plan_request(question: str, datasources: list[str], round: int = 1) -> PlanRequest:
    route = Route(route="lookup", intent="lookup", resolved_query=question)
    return PlanRequest(
        route=route, round=round, tool_names=[], datasources=datasources, remaining_tool_calls=10
    )


def test_a_sql_statement_runs_on_the_datasource_the_question_names() -> None:
    plan = plan_lookup(
        _plan_request("run this SQL on orders: SELECT id, state FROM orders LIMIT 5", ["audit", "orders"])
    )
    assert [(c.tool, c.args) for c in plan.calls] == [
        ("query_mysql", {"datasource": "orders", "statement": "SELECT id, state FROM orders LIMIT 5"})
    ]


def test_a_lookup_plans_one_round_and_nothing_for_a_question_it_cannot_read() -> None:
    assert plan_lookup(_plan_request("Which targets are down?", [], round=2)).calls == []
    assert plan_lookup(_plan_request("Could you pull up what the db said?", [])).calls == []


def test_a_follow_up_to_a_lookup_is_the_same_lookup_about_the_system_it_names() -> None:
    earlier = Turn(query="Show the last 5 error lines from payment", summary="5 log lines")
    route = route_question(RouteRequest(query="and for checkout?", flow="CHAT", history=[earlier]))
    assert route.route == "lookup" and route.resolved_query == "Show the last 5 error lines from checkout"
    assert "checkout" in route.services
    assert confident_route(RouteRequest(query="and for checkout?", flow="CHAT", history=[earlier])) == route
    diagnosis = Turn(query="why is payment slow?", summary="pool exhausted", root_cause_service="payment")
    assert (
        route_question(RouteRequest(query="and for checkout?", flow="CHAT", history=[diagnosis])).route
        == "complex"
    )


def test_a_name_asked_about_without_a_word_for_now_is_no_metric_lookup() -> None:
    assert lookup_ask("What is OOMKilled?") is None
    assert lookup_ask("What is node_load1?") is None
