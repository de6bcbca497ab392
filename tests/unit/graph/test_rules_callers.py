"""A caller's errors point to its callee when they name it in another spelling or when they say a
database call failed and one database in the incident began first."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.dependencies import names_joined
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.findings import message_of, quote
from graph.analysts.rules.scoring import changes_near
from graph.analysts.rules.suspect import Suspect
from graph.analysts.rules.suspects import rank_suspects
from graph.analysts.rules.vocabulary import CHANGE
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly


def _ask(digest: Digest) -> DiagnoseRequest:
    question = "the portal times out since 09:40, what is wrong?"
    return DiagnoseRequest(
        route=Route(route="complex", resolved_query=question),
        evidence=[],
        digest=digest,
        now="2026-01-01T10:30:00Z",
    )


def _move(metric: str, service: str, at: str, labels: dict[str, str], base: float = 10) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-2",
        metric=metric,
        labels=labels,
        service=service,
        baseline=base,
        recent=100,
        peak=100,
        change_at=at,
        direction="up",
        ratio=100 / base,
        score=50.0,
    )


def _alert(name: str, service: str, at: str, severity: str) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1",
        alertname=name,
        service=service,
        severity=severity,
        status="firing",
        count=1,
        instances=[],
        first_started=at,
        summary=f"{name} on {service}",
        labels={"alertname": name, "service_name": service},
    )


def _errors(service: str, text: str, first: str, count: int = 40) -> LogPattern:
    return LogPattern(
        evidence_id="logs-2",
        service=service,
        level="error",
        template=text,
        count=count,
        first_seen=first,
        last_seen="2026-01-01T10:29:00Z",
        example=text,
    )


def _portal(db_began: str) -> Digest:
    """A portal whose database commands time out, beside a managed database at its compute limit."""
    return Digest(
        anomalies=[
            _move(
                "p99(http_server_request_duration_seconds)",
                "portal",
                "2026-01-01T09:39:00Z",
                {"service_name": "portal"},
            ),
            _move(
                "rate(http_server_errors_total)", "portal", "2026-01-01T09:39:00Z", {"service_name": "portal"}
            ),
            _move(
                "vendor_sql_dtu_consumption_percent",
                "claims-store",
                db_began,
                {"database_name": "claims-store"},
            ),
        ],
        alert_groups=[
            _alert("PortalLatencyHigh", "portal", "2026-01-01T09:45:00Z", "page"),
            _alert("PortalErrorRate", "portal", "2026-01-01T09:47:00Z", "page"),
            _alert("VendorSqlDtuHigh", "claims-store", "2026-01-01T09:44:00Z", "critical"),
        ],
        log_patterns=[
            _errors(
                "portal",
                "Failed executing DbCommand (30004ms) CommandTimeout='30' SELECT ...",
                "2026-01-01T09:39:09Z",
            ),
            _errors("portal", "HTTP GET /claims responded 500 in 30012 ms", "2026-01-01T09:39:10Z", 58),
        ],
    )


def test_a_caller_whose_database_calls_fail_waits_on_the_database_that_began_first() -> None:
    draft = diagnose_digest(_ask(_portal(db_began="2026-01-01T09:38:00Z")))
    assert draft.root_cause is not None and draft.root_cause.service == "claims-store"
    assert draft.root_cause.category == "cpu_saturation"  # a DTU is a managed database's compute unit


def test_a_database_whose_trouble_began_after_the_callers_errors_is_not_what_they_waited_on() -> None:
    ranking = rank_suspects(_portal(db_began="2026-01-01T10:20:00Z"))
    store = next(
        s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet] if s.service == "claims-store"
    )
    assert not store.relayed_by


def test_a_name_of_several_words_is_named_in_another_spelling() -> None:
    assert names_joined("rpc traffic.v2.trafficmodel/predictsegments failed", "trafficmodel")
    assert names_joined("call to traffic_model timed out", "trafficmodel")
    assert not names_joined("the trafficmodeller job", "trafficmodel")
    digest = Digest(
        anomalies=[
            _move(
                "p99(rpc_server_duration_milliseconds)",
                "traffic-model",
                "2026-01-01T09:55:00Z",
                {"service_name": "traffic-model"},
            ),
            _move(
                "p99(http_server_request_duration_seconds)",
                "eta-api",
                "2026-01-01T09:56:00Z",
                {"service_name": "eta-api"},
            ),
            _move(
                "rate(http_server_errors_total)",
                "eta-api",
                "2026-01-01T09:56:00Z",
                {"service_name": "eta-api"},
            ),
        ],
        alert_groups=[_alert("EtaApiLatencyHigh", "eta-api", "2026-01-01T10:07:00Z", "page")],
        log_patterns=[
            _errors(
                "eta-api",
                '4 DEADLINE_EXCEEDED rpc="traffic.v2.TrafficModel/PredictSegments"',
                "2026-01-01T09:57:00Z",
            ),
            _errors("eta-api", "request /v1/eta failed after 800 ms", "2026-01-01T09:57:00Z"),
        ],
    )
    ranking = rank_suspects(digest)
    assert ranking.ranked[0].service == "traffic-model" and "eta-api" in ranking.ranked[0].blamed_by


def test_a_release_is_measured_to_its_systems_first_warnings_not_only_to_everyones_errors() -> None:
    """A release at 06:03; its own first slow-write warnings at 06:30; rejects for everyone from 06:56."""

    def digest(first_warning: str) -> Digest:
        return Digest(
            anomalies=[
                _move(
                    "rate(ingest_insert_errors_total)", "ingest", "2026-01-01T06:56:00Z", {"job": "ingest"}
                ),
                _move(
                    "rate(store_rejected_inserts_total)",
                    "store-1",
                    "2026-01-01T06:56:00Z",
                    {"job": "store-1"},
                ),
            ],
            alert_groups=[_alert("StoreRejectingInserts", "store-1", "2026-01-01T06:58:00Z", "critical")],
            log_patterns=[
                _errors(
                    "ingest", "insert failed (replica store-1): too many parts", "2026-01-01T06:56:23Z", 125
                ),
                _errors("ingest", "slow insert: 4.1s for 500 rows", first_warning, 10),
                replace(
                    _errors(
                        "deployer",
                        "app ingest: Deployment ingest image reg/ingest:2.13.2 -> reg/ingest:2.14.0",
                        "2026-01-01T06:03:41Z",
                        1,
                    ),
                    level="info",
                    last_seen="2026-01-01T06:03:41Z",
                ),
            ],
        )

    def ingest(first_warning: str) -> Suspect:
        ranking = rank_suspects(digest(first_warning))
        return next(s for s in ranking.ranked if s.service == "ingest")

    early, late = ingest(first_warning="2026-01-01T06:30:29Z"), ingest(first_warning="2026-01-01T06:56:30Z")
    assert early.onset is not None and late.onset is not None
    assert [p.template for p in changes_near(early, early.onset)] == [early.changes[0].template]
    assert changes_near(late, late.onset) == []  # a release an hour before the trouble began nothing
    assert early.score == late.score + 2.0


def _crash_loop(worker_line: str) -> Digest:
    """A worker crash-loops after a credential rotation; the broker refuses its login."""
    return Digest(
        anomalies=[
            _move(
                "kube_deployment_status_replicas_unavailable",
                "worker",
                "2026-01-01T08:21:00Z",
                {"job": "kube-state-metrics", "namespace": "media", "deployment": "worker"},
            )
        ],
        alert_groups=[_alert("KubePodCrashLooping", "worker", "2026-01-01T08:36:00Z", "warning")],
        log_patterns=[
            _errors("worker", worker_line, "2026-01-01T08:20:58Z", 24),
            _errors(
                "worker",
                "fatal: cannot start without a broker connection, exiting",
                "2026-01-01T08:20:58Z",
                24,
            ),
            _errors(
                "msgbus",
                "PLAIN login refused: user 'transcode' - invalid credentials",
                "2026-01-01T08:20:58Z",
                24,
            ),
        ],
    )


def test_a_login_refused_is_the_callers_credentials_not_the_refusing_servers_failure() -> None:
    refused = '{"level":"ERROR","msg":"broker login failed: invalid credentials","broker":"amqp://msgbus:5672/media"}'
    draft = diagnose_digest(_ask(_crash_loop(refused)))
    assert draft.root_cause is not None and draft.root_cause.service == "worker"
    # The crash loop is how it shows; the refused login is why.
    assert draft.root_cause.category == "configuration_error"
    # A failure of the far side is still the far side's.
    failed = '{"level":"ERROR","msg":"broker connection failed: connection reset","broker":"amqp://msgbus:5672/media"}'
    assert (
        "worker"
        in next(s for s in rank_suspects(_crash_loop(failed)).ranked if s.service == "msgbus").blamed_by
    )


def test_a_long_structured_line_is_quoted_by_its_message() -> None:
    line = '{"time":"2027-09-14T08:20:58.709Z","level":"ERROR","host":"transcode-worker-6f9c7d8b5-x2kqp",'
    line += '"msg":"broker login failed: invalid credentials"}'
    assert quote(line) == "broker login failed: invalid credentials"
    logfmt = f'time=2027-09-14T08:20:06Z level=error msg="failed to update the user password" {"x=1 " * 30}'
    assert quote(logfmt) == "failed to update the user password"
    assert message_of('{"msg":"escaped \\"inner\\" quotes in a long enough message"}') is None  # not verbatim


def test_a_stack_trace_is_quoted_up_to_where_it_begins() -> None:
    python = (
        "[ERROR] KeyError: 'carrier_code' Traceback (most recent call last): File \"/var/task/h.py\", line 88"
    )
    assert quote(python) == "[ERROR] KeyError: 'carrier_code'"
    java = "java.lang.IllegalStateException: pool closed at com.x.Pool.get(Pool.java:88) at c.R.g(R.java:1)"
    assert quote(java) == "java.lang.IllegalStateException: pool closed"


def test_a_consumer_released_just_before_its_queue_grew_is_named_by_what_its_lines_say_of_it() -> None:
    """A function deployed at 13:12:08; the queue's deletes fell in the 13:11 minute; its lines speak
    of "the queue" without its name."""
    queue = {"queue_name": "parcel-events"}
    digest = Digest(
        anomalies=[
            _move(
                "aws_sqs_approximate_age_of_oldest_message", "parcel-events", "2026-01-01T13:11:00Z", queue
            ),
            _move(
                "aws_lambda_errors", "label-writer", "2026-01-01T13:12:00Z", {"function_name": "label-writer"}
            ),
        ],
        alert_groups=[
            _alert("parcel-events-Visible-ALARM", "parcel-events", "2026-01-01T13:22:00Z", "critical")
        ],
        log_patterns=[
            _errors(
                "label-writer", "batch failed, returning all 25 records to queue", "2026-01-01T13:13:31Z"
            ),
            replace(
                _errors(
                    "audit",
                    "eventName=UpdateFunctionCode functionName=label-writer",
                    "2026-01-01T13:12:08Z",
                    1,
                ),
                level="info",
                last_seen="2026-01-01T13:12:08Z",
            ),
        ],
    )
    ask = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why does the parcel-events queue keep growing?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T14:00:00Z",
    )
    draft = diagnose_digest(ask)
    assert draft.root_cause is not None and draft.root_cause.service == "label-writer"


def test_a_cache_whose_config_was_cut_is_the_cause_of_its_callers_falling_back_to_the_store() -> None:
    """A change ticket edits the cache's memory limit at 13:21; evictions, misses and the store's
    load follow; callers' lines say they fell back to the store."""
    cache = {"job": "kvcache", "instance": "kv-2"}
    store = {"job": "sqlstore", "instance": "db-1"}
    digest = Digest(
        anomalies=[
            _move("rate(kvcache_items_evicted_total)", "kvcache", "2026-01-01T13:22:00Z", cache),
            _move("rate(sqlstore_commands_total)", "sqlstore", "2026-01-01T13:22:00Z", store),
            _move(
                "p99(http_server_request_duration_seconds)",
                "charts",
                "2026-01-01T13:23:00Z",
                {"job": "charts"},
            ),
        ],
        log_patterns=[
            _errors(
                "charts",
                "cache miss chart:1:rows on kv-2, fell back to the store db-1 in 80ms",
                "2026-01-01T13:23:28Z",
            ),
            _errors(
                "db-1",
                "slow query 2.1s: SELECT row_no FROM chart_rows WHERE chart_id = 7",
                "2026-01-01T13:24:00Z",
            ),
            replace(
                _errors(
                    "changebot",
                    "CHG-20931 kv-2 /etc/kvcache.conf: -m 8192 -> -m 1024",
                    "2026-01-01T13:21:40Z",
                    1,
                ),
                level="info",
                last_seen="2026-01-01T13:21:40Z",
            ),
        ],
    )
    draft = diagnose_digest(_ask(digest))
    assert draft.root_cause is not None and draft.root_cause.service == "kv-2"
    assert draft.root_cause.category == "configuration_error"
    db = next(s for s in rank_suspects(digest).ranked if s.service == "db-1")
    assert "charts" not in db.blamed_by  # where it fell back to answered; it did not fail


def test_a_value_edited_in_a_config_file_or_a_change_ticket_carried_out_is_a_change() -> None:
    assert CHANGE.search("CHG-20931 kv-2 /etc/kvcache.conf: -m 8192 -> -m 1024")
    assert CHANGE.search("web.conf: worker_connections 1024 -> 4096")
    assert CHANGE.search("change RVK-CHG-20931 started by jpalm: target kv-2 (tuning)")
    assert not CHANGE.search("latency 12 -> 40ms") and not CHANGE.search("the change was small")


def test_a_series_counting_by_reason_says_why_and_a_slow_request_told_in_ms_is_latency() -> None:
    oom = {"namespace": "kube-system", "pod": "resolver-6b7f9d8c4-9xkqv", "reason": "OOMKilled"}
    digest = Digest(
        anomalies=[
            _move("kube_pod_container_status_last_terminated_reason", "resolver", "2026-01-01T09:39:00Z", oom)
        ],
        alert_groups=[_alert("KubePodCrashLooping", "resolver", "2026-01-01T09:54:00Z", "warning")],
    )
    draft = diagnose_digest(_ask(digest))
    assert draft.root_cause is not None and "{reason=OOMKilled}" in draft.root_cause.statement
    assert draft.root_cause.category == "memory_leak"  # the tag `memory`
    slow = Digest(
        log_patterns=[
            _errors(
                "pricing",
                "GET /api/v3/quotes/FL-6533 completed in 2416 ms (threshold 500 ms)",
                "2026-01-01T09:40:00Z",
            )
        ]
    )
    slow_draft = diagnose_digest(_ask(slow))
    assert slow_draft.root_cause is not None and slow_draft.root_cause.category == "latency"
