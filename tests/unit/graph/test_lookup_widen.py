"""A lookup whose queries all matched nothing reads the same ask more widely in a second round: a
metric named by part of its name, a machine's lines by its host labels, alerts by a word; and in a
third, the log streams whose names hold the question's words (rules/lookup_widen.py)."""

from __future__ import annotations

from typing import Any

from graph.analysts.base import LOOKUP_ROUNDS, Discovery, EvidenceRef, PlanRequest, Route
from graph.analysts.rules.lookup import plan_lookup
from graph.analysts.rules.lookup_widen import HOST_LABELS, WIDER_ROUND


def _ref(tool: str, status: str, **args: Any) -> EvidenceRef:
    return EvidenceRef(
        id="metrics-1", source="metrics", tool=tool, title="", status=status, summary="", args=args
    )


def _second_round(
    *refs: EvidenceRef,
    round: int = WIDER_ROUND,
    question: str = "what is X now?",
    streams: tuple[str, ...] = (),
) -> list[tuple[str, dict[str, Any]]]:
    request = PlanRequest(
        route=Route(route="lookup", intent="lookup", resolved_query=question),
        round=round,
        tool_names=[],
        datasources=[],
        remaining_tool_calls=10,
        evidence=list(refs),
        discovery=Discovery(log_services=streams),
    )
    return [(call.tool, dict(call.args)) for call in plan_lookup(request).calls]


def test_a_metric_named_by_part_of_its_name_is_read_by_every_name_containing_it() -> None:
    empty = _ref("query_promql_instant", "EMPTY", promql="DeadletteredMessages", at="2028-05-22T09:30:00Z")
    assert _second_round(empty) == [
        ("query_promql_instant", {"promql": '{__name__=~"(?i).*DeadletteredMessages.*"}'}),
        # Its CamelCase words, in the exporter's snake_case (`..._deadlettered_messages_average`).
        (
            "query_promql_instant",
            {"promql": '{__name__=~"(?i).*(deadlettered.*messages|messages.*deadlettered).*"}'},
        ),
    ]
    # An expression is the user's own PromQL: it is not rewritten.
    assert _second_round(_ref("query_promql_instant", "EMPTY", promql='rate(x_total{job="a"}[5m])')) == []


def test_a_range_read_nothing_matched_is_widened_over_the_same_window() -> None:
    # "the highest EngineCPUUtilization over the last 2 hours": `aws_..._engine_cpuutilization_average`.
    empty = _ref("query_promql", "EMPTY", promql="EngineCPUUtilization", window_minutes=120)
    wider = _second_round(empty)
    assert {tool for tool, _ in wider} == {"query_promql"}
    assert all(args["window_minutes"] == 120 for _, args in wider)
    assert wider[1][1]["promql"].startswith('{__name__=~"(?i).*(engine.*cpu.*utilization|')


def test_words_no_one_name_holds_together_are_read_one_at_a_time() -> None:
    words = '{__name__=~"(?i).*(pending.*messages|messages.*pending).*"}'
    assert _second_round(_ref("query_promql_instant", "EMPTY", promql=words)) == [
        ("query_promql_instant", {"promql": '{__name__=~"(?i).*messages.*"}'}),
        ("query_promql_instant", {"promql": '{__name__=~"(?i).*pending.*"}'}),
    ]
    lag = '{__name__=~"(?i).*(consumer.*lag|lag.*consumer).*"}'  # `kafka_burrow_total_lag`
    assert [
        args["promql"] for _, args in _second_round(_ref("query_promql_instant", "EMPTY", promql=lag))
    ] == [
        '{__name__=~"(?i).*consumer.*"}',
        '{__name__=~"(?i).*lag.*"}',
        '{__name__=~"(?i).*delay.*"}',  # the words backends use for lag
        '{__name__=~"(?i).*behind.*"}',
    ]
    # A word backends spell otherwise: a queue's depth is its messages, a database's backends its connections.
    depth = _ref("query_promql_instant", "EMPTY", promql='{__name__=~"(?i).*depth.*"}')
    assert [args["promql"] for _, args in _second_round(depth)] == [
        '{__name__=~"(?i).*messages.*"}',
        '{__name__=~"(?i).*length.*"}',
        '{__name__=~"(?i).*size.*"}',
    ]
    # A noun of an act is its verb in names, and a rate stays a rate.
    evictions = _ref("query_promql_instant", "EMPTY", promql='rate({__name__=~"(?i).*evictions.*"}[5m])')
    assert [args["promql"] for _, args in _second_round(evictions)] == [
        'rate({__name__=~"(?i).*evicted.*"}[5m])'
    ]
    # One word already stood alone: nothing wider to read.
    assert _second_round(_ref("query_promql_instant", "EMPTY", promql='{__name__=~"(?i).*retries.*"}')) == []


def test_a_machines_lines_are_read_by_its_host_labels_with_the_same_filters() -> None:
    empty = _ref(
        "query_logs", "EMPTY", service="vault-2", contains="sealed", limit=5, window_minutes=1440,
        start="2028-12-02T10:05:00Z", end="2028-12-03T10:05:00Z", first_lines=False,
    )  # fmt: skip
    calls = [(tool, args) for tool, args in _second_round(empty) if tool == "query_logs"]
    assert [args["labels"] for _, args in calls] == [{label: "vault-2"} for label in HOST_LABELS]
    assert all(
        args == {"contains": "sealed", "limit": 5, "window_minutes": 1440, "labels": args["labels"]}
        for _, args in calls
    )


def test_the_last_round_reads_the_streams_whose_names_hold_the_questions_words() -> None:
    asked = _ref("query_logs", "EMPTY", service="mysql", limit=10, window_minutes=1440)
    assert ("list_log_streams", {"label": "service"}) in _second_round(asked)  # names for the last round
    streams = ("nginx", "mysql-slow", "php-fpm", "kafka")
    last = _second_round(
        asked, round=LOOKUP_ROUNDS, question="last 10 slow query log entries from mysql", streams=streams
    )
    assert last == [("query_logs", {"limit": 10, "window_minutes": 1440, "service": "mysql-slow"})]
    # "the kafka broker logs" read as the stream `broker`: a word of the question names the stream.
    broker = _ref("query_logs", "EMPTY", service="broker", contains="No space left")
    kafka = _second_round(
        broker,
        round=LOOKUP_ROUNDS,
        question="grep the kafka broker logs for 'No space left'",
        streams=streams,
    )
    assert kafka == [("query_logs", {"contains": "No space left", "service": "kafka"})]
    assert (
        _second_round(_ref("query_logs", "OK", service="mysql"), round=LOOKUP_ROUNDS, streams=streams) == []
    )


def test_with_no_stream_of_the_name_the_last_round_reads_what_any_stream_says() -> None:
    """A program's name (`mongod`, logging under its hosts' names) or a job's ("the backup job")
    that no stream goes by: the lines of any stream saying what was asked for, else the name."""
    streams = ("mongo-ord-01", "mongo-ord-02", "order-intake")
    elections = _ref("query_logs", "EMPTY", service="mongod", contains="election", window_minutes=60)
    asked = "show the election lines from the mongod logs"
    last = _second_round(elections, round=LOOKUP_ROUNDS, question=asked, streams=streams)
    assert last == [("query_logs", {"contains": "election", "window_minutes": 60})]
    backup = _ref("query_logs", "EMPTY", service="backup", limit=10)
    last = _second_round(
        backup, round=LOOKUP_ROUNDS, question="the last 10 log lines from the backup job", streams=streams
    )
    assert last == [("query_logs", {"limit": 10, "contains": "backup"})]


def test_alerts_asked_for_by_a_word_no_alert_is_about_are_all_listed_to_be_narrowed() -> None:
    assert _second_round(_ref("list_alerts", "EMPTY", service="rabbit")) == [("list_alerts", {})]
    assert _second_round(_ref("list_alerts", "EMPTY")) == []


def test_nothing_is_widened_once_any_query_matched_or_after_the_last_round() -> None:
    found = _ref("query_logs", "OK", service="vault")
    empty = _ref("query_promql_instant", "EMPTY", promql="oldest_unacked_message_age")
    assert _second_round(found, empty) == []
    assert _second_round(_ref("query_promql_instant", "ERROR", promql="x")) == []
    assert _second_round(empty, round=LOOKUP_ROUNDS + 1) == []
