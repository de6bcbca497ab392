"""A cloud exporter's job (`job=cloudwatch`) speaks for many resources: each series is its named
resource's (a function, a table), a cloud audit log's management call on a resource is that
resource's change, and the follow-up round reads what any stream says about a resource the errors name."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Discovery, PlanRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.plan import plan_followup
from graph.analysts.rules.suspects import rank_suspects
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly


def _series(metric: str, at: str, **labels: str) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-1",
        metric=metric,
        labels={"job": "cloudwatch", **labels},
        service="cloudwatch",
        baseline=1.0,
        recent=900.0,
        peak=900.0,
        change_at=at,
        direction="up",
        ratio=900.0,
        score=9.0,
    )


def _line(service: str, text: str, at: str, level: str, count: int = 40) -> LogPattern:
    return LogPattern(
        evidence_id="logs-1",
        service=service,
        level=level,
        template=text,
        count=count,
        first_seen=at,
        last_seen="2026-01-01T13:40:00Z",
        example=text,
    )


ERRORS = _line(
    "orders-handler",
    "order not committed table=orders-book: ProvisionedThroughputExceededException calling PutItem",
    "2026-01-01T13:03:29Z",
    "error",
)
AUDIT = _line(
    "audit-trail",
    'eventName=UpdateTable requestParameters={"tableName":"orders-book","provisionedThroughput":'
    '{"writeCapacityUnits":200}}',
    "2026-01-01T13:02:17Z",
    "info",
    count=1,
)
FUNCTION = _series("aws_lambda_errors_sum", "2026-01-01T13:03:00Z", function_name="orders-handler")
TABLE = _series("aws_dynamodb_write_throttle_events_sum", "2026-01-01T13:03:00Z", table_name="orders-book")


def test_a_collector_jobs_series_are_their_named_resources() -> None:
    ranking = rank_suspects(Digest(anomalies=[FUNCTION, TABLE]))
    assert {s.service for s in ranking.ranked} == {"orders-handler", "orders-book"}
    # One resource only: the job's series stay the job's (nothing to tell apart).
    assert [s.service for s in rank_suspects(Digest(anomalies=[TABLE])).ranked] == ["cloudwatch"]


def test_a_management_call_on_the_resource_just_before_the_errors_is_the_cause() -> None:
    digest = Digest(anomalies=[FUNCTION, TABLE], log_patterns=[ERRORS, AUDIT])
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why do orders fail since 13:00?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T13:40:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.service == "orders-book"
    assert draft.root_cause.category == "configuration_error"
    assert 'change "eventName=UpdateTable' in draft.root_cause.statement
    # A data call (`PutItem`) is no change.
    assert not rank_suspects(Digest(log_patterns=[ERRORS])).ranked[0].changes


def test_the_follow_up_reads_what_any_stream_says_about_a_resource_the_errors_name() -> None:
    request = PlanRequest(
        route=Route(route="complex", resolved_query="why do orders fail?"),
        round=3,
        tool_names=["query_logs"],
        datasources=[],
        remaining_tool_calls=20,
        digest=Digest(anomalies=[FUNCTION, TABLE], log_patterns=[ERRORS]),
        discovery=Discovery(),
    )
    contains = [c.args.get("contains") for c in plan_followup(request).calls if c.tool == "query_logs"]
    assert "orders-book" in contains


def _queue_alert(queue: str) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1",
        alertname="QueueBacklogGrowing",
        service="celery-exporter",
        severity="warning",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T13:05:00Z",
        summary=f"{queue} backlog keeps growing",
        labels={"alertname": "QueueBacklogGrowing", "job": "celery-exporter", "queue_name": queue},
    )


def test_a_collector_jobs_alerts_are_their_named_resources() -> None:
    """Alerts of one exporter job on two queues are the queues' trouble, not the exporter's; with a
    moved series of a third resource of the same job, all three are told apart."""
    alerts = [_queue_alert("render-backlog"), _queue_alert("thumbs")]
    ranking = rank_suspects(Digest(alert_groups=alerts))
    assert {s.service for s in ranking.ranked} == {"render-backlog", "thumbs"}
    # One resource only: the job's alert stays the job's (nothing to tell apart).
    assert [s.service for s in rank_suspects(Digest(alert_groups=alerts[:1])).ranked] == ["celery-exporter"]
