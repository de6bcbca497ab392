"""The lookup's tables on plain evidence items, and both guards' checks of them."""

from __future__ import annotations

from typing import Any

from graph.analysts.lookup import LOOKUP_TOOLS
from graph.analysts.rules.lookup import lookup_ask
from graph.nodes.lookup.guard import check_rows
from graph.nodes.lookup.tables import MAX_CELL_CHARS, READERS, lookup_answer
from graph.nodes.semantic_guard.lookup import check_lookup_release
from tools.base import Evidence, EvidenceSource, EvidenceStatus


def _item(
    evidence_id: str,
    tool: str,
    data: dict[str, Any],
    query: dict[str, Any] | None = None,
    status: EvidenceStatus = EvidenceStatus.OK,
    truncated: bool = False,
) -> Evidence:
    return Evidence(
        id=evidence_id,
        source=EvidenceSource.LOGS if tool == "query_logs" else EvidenceSource.METRICS,
        tool=tool,
        title=tool,
        summary=f"{tool} said so",
        data=data,
        query=query or {},
        status=status,
        truncated=truncated,
    )


def _line(ts: str, message: str, level: str = "ERROR", **labels: str) -> dict[str, Any]:
    return {"ts": ts, "labels": {"service": "api", "level": level, **labels}, "message": message}


LEVEL = _item(
    "logs-1",
    "query_logs",
    {"lines": [_line("2026-01-01T10:02:00Z", "b failed"), _line("2026-01-01T10:00:00Z", "a failed")]},
    {"service": "api", "level": "error", "limit": 2},
    truncated=True,
)
TEXT = _item(
    "logs-2",
    "query_logs",
    {
        "lines": [
            _line("2026-01-01T10:03:00Z", "ERROR c", level="info", ns="x"),
            _line("2026-01-01T10:02:00Z", "b failed"),
        ]
    },
    {"service": "api", "contains": "ERROR", "limit": 2},
)
SERIES = _item(
    "metrics-1",
    "query_promql_instant",
    {
        "series": [
            {"metric": "lag", "labels": {"db": "one"}, "samples": [[1767261600.0, 912.0]]},
            {"metric": "lag", "labels": {"db": "two"}, "samples": [[1767261600.0, 0.25]]},
        ]
    },
    {"promql": "lag"},
)


def test_log_queries_merge_into_one_table_newest_first_within_the_limit() -> None:
    answer = lookup_answer([LEVEL, TEXT])
    [table] = answer.tables
    assert table.kind == "log_lines" and table.evidence_ids == ["logs-1", "logs-2"]
    assert [row[-1] for row in table.rows] == ["ERROR c", "b failed"]  # deduplicated, newest first, limit 2
    assert table.rows[0][3] == "ns=x" and table.truncated is True
    assert "query_logs(contains=ERROR, limit=2, service=api)" in table.query
    assert answer.summary.startswith("2 log lines") and not answer.nothing_matched


def test_an_empty_result_is_nothing_matched_and_a_failed_one_says_so() -> None:
    empty = _item("logs-3", "query_logs", {"lines": []}, {"contains": "zzz"}, EvidenceStatus.EMPTY)
    answer = lookup_answer([empty])
    assert answer.nothing_matched and answer.summary == "Nothing matched: query_logs(contains=zzz)"
    down = _item("logs-4", "query_logs", {}, {}, EvidenceStatus.UNAVAILABLE)
    failed = lookup_answer([down])
    assert not failed.nothing_matched and failed.failed == ["logs-4"]
    assert failed.summary == "The query could not run: query_logs: query_logs said so"
    assert lookup_answer([]).summary.startswith("No query could be formed")


def test_series_are_narrowed_to_the_system_the_question_names_when_one_matches() -> None:
    [table] = lookup_answer([SERIES], about=["two"]).tables
    assert table.rows == [['lag{db="two"}', "0.25", "2026-01-01T10:00:00Z"]] and table.total == 1
    [everything] = lookup_answer([SERIES], about=["three"]).tables
    assert len(everything.rows) == 2 and everything.rows[0][1] == "912"


def test_series_naming_the_most_of_what_was_asked_are_kept_a_percentile_by_its_quantile() -> None:
    """ "The p99 of x for planner": its 0.99 quantile, not the median beside it that names planner too."""

    def quantile(value: str, reading: float) -> dict[str, Any]:
        labels = {"application": "planner", "quantile": value}
        return {"metric": "x_seconds", "labels": labels, "samples": [[1767261600.0, reading]]}

    latencies = _item(
        "metrics-2",
        "query_promql_instant",
        {"series": [quantile("0.5", 18.4), quantile("0.99", 27.26), quantile("0.999", 29.0)]},
        {"promql": "x_seconds"},
    )
    [table] = lookup_answer([latencies], about=["planner", "p99"]).tables
    assert [row[1] for row in table.rows] == ["27.26"]
    [median] = lookup_answer([latencies], about=["planner", "p50"]).tables
    assert [row[1] for row in median.rows] == ["18.4"]


def test_series_keep_the_label_and_value_the_question_spells_together() -> None:
    """ "The lag of group g on partition 7": partition="7", not partitions 5 and 6 beside it."""

    def lag(partition: str, value: float) -> dict[str, Any]:
        labels = {"consumergroup": "g", "partition": partition}
        return {"metric": "kafka_consumergroup_lag", "labels": labels, "samples": [[1767261600.0, value]]}

    lags = _item(
        "metrics-3",
        "query_promql_instant",
        {"series": [lag("5", 22145.0), lag("6", 22288.0), lag("7", 22325.0), lag("17", 3.0)]},
        {"promql": "kafka_consumergroup_lag"},
    )
    [table] = lookup_answer([lags], question="what is the lag of group g on partition 7?").tables
    assert [row[1] for row in table.rows] == ["22325"] and table.title == "1 series"
    [every] = lookup_answer([lags], question="what is the lag of group g?").tables
    assert len(every.rows) == 4


def test_alerts_listed_for_a_word_no_alert_is_about_keep_those_holding_it() -> None:
    """ "Which alerts are firing for rabbit?": no alert's identity is `rabbit`, all were listed."""

    def alert(name: str, identity: str) -> dict[str, Any]:
        return {"labels": {"alertname": name}, "identity": identity, "status": "firing"}

    listed = _item(
        "alerts-2",
        "list_alerts",
        {
            "alerts": [
                alert("RabbitmqTooManyReadyMessages", "job=rabbitmq"),
                alert("HostHighCpuLoad", "instance=ci-7"),
            ]
        },
    )
    [table] = lookup_answer([listed], about=["rabbit"]).tables
    assert [row[0] for row in table.rows] == ["RabbitmqTooManyReadyMessages"]
    [none] = lookup_answer([listed], about=["kafka"]).tables
    assert none.rows == []  # not every firing alert: they would answer another question
    asked = _item("alerts-1", "list_alerts", dict(listed.data), query={"service": "rabbitmq"})
    [kept] = lookup_answer([asked], about=["kafka"]).tables
    assert len(kept.rows) == 2  # a list the tool already filtered by identity is shown as it came


def test_alerts_listed_for_a_place_keep_those_whose_labels_are_in_it() -> None:
    """ "What's firing in prod?": no system is called prod; the alerts of `cluster=shop-prod-eu` are."""

    def alert(name: str, cluster: str) -> dict[str, Any]:
        labels = {"alertname": name, "cluster": cluster, "namespace": "secrets"}
        return {"labels": labels, "identity": "namespace=secrets", "status": "firing"}

    listed = _item(
        "alerts-2",
        "list_alerts",
        {"alerts": [alert("VaultSealed", "shop-prod-eu"), alert("KubeHpaMaxedOut", "shop-staging-eu")]},
    )
    [table] = lookup_answer([listed], about=["prod"]).tables
    assert [row[0] for row in table.rows] == ["VaultSealed"]
    assert "placed_in" in table.query
    [none] = lookup_answer([listed], about=["dev"]).tables
    assert none.rows == []


def test_alerts_and_targets_read_their_own_fields() -> None:
    alerts = _item(
        "alerts-1",
        "list_alerts",
        {
            "alerts": [
                {
                    "labels": {"alertname": "Lag", "severity": "page"},
                    "annotations": {"summary": "lag high"},
                    "identity": "db=one",
                    "status": "firing",
                    "silenced": True,
                    "startsAt": "2026-01-01T09:00:00Z",
                }
            ]
        },
    )
    targets = _item(
        "metrics-2",
        "list_targets",
        {
            "targets": [
                {"labels": {"job": "node", "instance": "h:9100"}, "health": "down", "last_error": "refused"}
            ]
        },
    )
    alert_table, target_table = lookup_answer([alerts, targets]).tables
    assert alert_table.rows == [
        ["Lag", "db=one", "page", "firing silenced", "2026-01-01T09:00:00Z", "lag high"]
    ]
    assert target_table.rows == [["node", "h:9100", "down", "refused", ""]]


def test_every_row_shown_must_be_in_a_cited_result_of_the_run() -> None:
    answer = lookup_answer([LEVEL, TEXT, SERIES])
    assert check_rows(answer, [LEVEL, TEXT, SERIES]) == []
    answer.tables[0].rows.append(["2026-01-01T10:09:00Z", "api", "ERROR", "", "disk full"])
    answer.tables[0].total += 1
    assert check_rows(answer, [LEVEL, TEXT, SERIES]) == ["table 1 row 3 is in no cited tool result"]


def test_citations_must_exist_succeed_and_be_of_the_tables_kind() -> None:
    answer = lookup_answer([SERIES])
    table = answer.tables[0]
    failed = _item("metrics-1", "query_promql_instant", {}, {}, EvidenceStatus.ERROR)
    assert check_rows(answer, []) == [
        "table 1 cites unknown evidence id 'metrics-1'",
        "table 1 row 1 is in no cited tool result",
        "table 1 row 2 is in no cited tool result",
    ]
    assert check_rows(answer, [failed])[0] == "table 1 cites evidence 'metrics-1' that did not succeed"
    table.evidence_ids = ["logs-1"]
    assert check_rows(answer, [LEVEL])[0] == "table 1 (series) cites 'logs-1' of tool query_logs"
    table.evidence_ids = []
    assert check_rows(answer, [SERIES]) == ["table 1 cites no evidence"]


def test_cells_are_checked_for_secrets_but_rows_quoting_commands_are_data() -> None:
    quoting = _item(
        "logs-5",
        "query_logs",
        {"lines": [_line("2026-01-01T10:00:00Z", "slow query: DELETE FROM carts WHERE id=4")]},
    )
    assert check_lookup_release(lookup_answer([quoting])).ok
    leaking = _item(
        "logs-6", "query_logs", {"lines": [_line("2026-01-01T10:00:00Z", "token ghp_" + "a" * 36)]}
    )
    verdict = check_lookup_release(lookup_answer([leaking]))
    assert not verdict.ok and verdict.reason == "secret:github_token"
    prompt = "You translate a data question of an on-call engineer into the tool calls that read it."
    echo = _item("logs-7", "query_logs", {"lines": [_line("2026-01-01T10:00:00Z", prompt)]})
    assert check_lookup_release(lookup_answer([echo]), [prompt]).reason == "prompt:verbatim"


def test_every_lookup_tool_has_a_reader() -> None:
    assert set(READERS) == set(LOOKUP_TOOLS)


def test_the_alert_history_is_a_table_of_what_fired_and_resolved() -> None:
    history = {
        "history": [
            {
                "labels": {"alertname": "SlowConsumer", "server_name": "nats-2", "severity": "warning"},
                "firing_now": False,
                "episodes": [
                    {"startsAt": "2031-01-01T07:10:00Z", "endsAt": "2031-01-01T07:20:00Z"},
                    {"startsAt": "2031-01-01T08:00:00Z", "endsAt": "2031-01-01T08:05:00Z"},
                ],
            }
        ]
    }
    answer = lookup_answer([_item("metrics-1", "alert_history", history)])
    [table] = answer.tables
    assert table.kind == "alerts"
    assert table.rows == [
        [
            "SlowConsumer",
            "server_name=nats-2",
            "warning",
            "resolved",
            "2031-01-01T07:10:00Z",
            "2031-01-01T08:05:00Z",
            "2",
        ]
    ]
    assert check_rows(answer, [_item("metrics-1", "alert_history", history)]) == []


def test_a_long_line_keeps_its_beginning_and_its_end_and_the_guard_still_holds_it() -> None:
    long = (
        '{"eventVersion":"1.08","eventName":"UpdateFunctionCode",'
        + '"x":"'
        + "y" * 1200
        + '","eventID":"3f1c9a2e"}'
    )
    item = _item(
        "logs-3", "query_logs", {"lines": [_line("2026-01-01T10:05:00Z", long)]}, {"contains": "Update"}
    )
    answer = lookup_answer([item])
    shown = answer.tables[0].rows[0][-1]
    assert (
        len(shown) == MAX_CELL_CHARS
        and shown.startswith('{"eventVersion"')
        and shown.endswith('"eventID":"3f1c9a2e"}')
    )
    assert " … " in shown
    assert check_rows(answer, [item]) == []


def test_an_sdk_error_of_five_hundred_characters_is_shown_whole() -> None:
    sdk = "GET /v1/x failed: " + "Request rate is large. " * 18 + "ActivityId: f158cc3b-6257 (code=429)"
    whole = _item(
        "logs-4", "query_logs", {"lines": [_line("2026-01-01T10:06:00Z", sdk)]}, {"contains": "GET"}
    )
    assert len(sdk) > 400 and lookup_answer([whole]).tables[0].rows[0][-1] == sdk


def _listed_alert(name: str, **labels: str) -> dict[str, Any]:
    return {"labels": {"alertname": name, **labels}, "identity": name, "status": "firing"}


def test_an_alert_list_keeps_the_alerts_whose_labels_hold_the_pairs_the_question_spells() -> None:
    listed = _item(
        "alerts-1",
        "list_alerts",
        {
            "alerts": [
                _listed_alert("QueueNoConsumers", team="blue", severity="critical"),
                _listed_alert("UnitFailed", team="blue", severity="warning"),
                _listed_alert("HostHighCpuLoad", team="green", severity="critical"),
            ]
        },
    )

    def names(question: str, about: list[str] | None = None) -> list[str]:
        [table] = lookup_answer([listed], about=about or [], question=question).tables
        return [row[0] for row in table.rows]

    assert names("list firing alerts for team blue", about=["team"]) == ["QueueNoConsumers", "UnitFailed"]
    assert names("list the firing alerts with severity critical") == ["QueueNoConsumers", "HostHighCpuLoad"]
    assert names("which critical alerts does team=blue have?") == ["QueueNoConsumers"]
    assert len(names("list the firing alerts")) == 3  # no pair spelled: every alert
    [table] = lookup_answer([listed], question="list firing alerts for team blue").tables
    assert "team" in table.query and "blue" in table.query  # the filter is shown with the query
    assert check_rows(lookup_answer([listed], question="alerts for team blue"), [listed]) == []


def test_things_in_a_state_the_platform_names_are_the_alerts_whose_labels_hold_it() -> None:
    listed = _item(
        "alerts-1",
        "list_alerts",
        {
            "alerts": [
                _listed_alert("PodCrashLooping", pod="tally-7d-2zl", reason="CrashLoopBackOff"),
                _listed_alert("PodNotReady", pod="tally-7d-9qx", reason="ImagePullBackOff"),
                _listed_alert("HostHighCpuLoad", instance="node-3"),
            ]
        },
    )
    question = "Which pods are in CrashLoopBackOff?"
    answer = lookup_answer([listed], about=["CrashLoopBackOff"], question=question)
    [table] = answer.tables
    assert [row[0] for row in table.rows] == ["PodCrashLooping"]
    assert check_rows(answer, [listed]) == []
    ask = lookup_ask(question)
    assert ask is not None and [c.tool for c in ask.calls] == ["list_alerts", "query_logs"]
    assert lookup_ask("which pods are in production?") is None  # a plain word is no state


def test_a_stack_traces_cell_keeps_what_failed_at_every_level_not_its_frames() -> None:
    trace = "\n".join(
        [
            "Consumer exception",
            "java.lang.IllegalStateException: This error handler cannot process " + "x" * 200,
            *(
                f"\tat org.example.Listener.run{n}(Listener.java:{n}) ~[listener-1.2.jar!/:1.2]"
                for n in range(30)
            ),
            "Caused by: RecordDeserializationException: partition readings-4 at offset 18234991.",
            "\t... 12 more",
        ]
    )
    item = _item(
        "logs-3", "query_logs", {"lines": [_line("2026-01-01T10:04:00Z", trace)]}, {"service": "api"}
    )
    [table] = lookup_answer([item]).tables
    message = table.rows[0][-1]
    assert "offset 18234991" in message and "Listener.java" not in message
    assert all(len(line) <= 160 for line in message.split("\n"))
    assert check_rows(lookup_answer([item]), [item]) == []  # the guard reads the same cell
