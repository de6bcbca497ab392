"""A restart is a change: the system whose process started again just before the others' trouble is
the cause, and a system known only by its software's name is named by the machine it runs on."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, EvidenceRef, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.members import software_host
from graph.analysts.rules.suspect import Suspect
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

CACHE = {"job": "kvcache", "instance": "kv-7:9150"}
DB = {"job": "rowstore", "instance": "rows-1:9104"}
APP = {"job": "quotes", "service": "quotes"}


def _moved(
    metric: str, labels: dict[str, str], at: str, base: float, now: float, **extra: object
) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id=f"metrics-{len(metric)}",
        metric=metric,
        labels=labels,
        service=labels.get("service") or labels["job"],
        baseline=base,
        recent=now,
        peak=max(base, now),
        change_at=at,
        direction="up" if now > base else "down",
        ratio=now / base,
        score=50.0,
        **extra,  # type: ignore[arg-type]
    )


def _digest(*, restarted: bool) -> Digest:
    uptime = _moved("kvcache_uptime_seconds", CACHE, "2026-01-01T13:42:00Z", 1_446_000, 1_140)
    return Digest(
        anomalies=[
            replace(uptime, event="restart" if restarted else None),
            _moved("kvcache_current_items", CACHE, "2026-01-01T13:42:00Z", 812_300, 153_500),
            _moved("rowstore_threads_running", DB, "2026-01-01T13:43:00Z", 6, 58),
            _moved("http_request_duration_seconds_p99", APP, "2026-01-01T13:44:00Z", 0.12, 2.4),
        ],
        log_patterns=[
            LogPattern(
                evidence_id="logs-1",
                service="quotes",
                level="warn",
                template="slow read of quote <HEX> from store took <DURATION>",
                count=60,
                first_seen="2026-01-01T13:45:00Z",
                last_seen="2026-01-01T14:19:00Z",
                example="slow read of quote 2ca48fbd from store took 1.9s",
            ),
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="QuotesSlow",
                service="quotes",
                severity="critical",
                status="firing",
                count=1,
                instances=[],
                first_started="2026-01-01T13:47:00Z",
                summary="quotes p99 above 1s",
                labels={"alertname": "QuotesSlow", **APP},
            ),
        ],
    )


def _ask(digest: Digest) -> DiagnoseRequest:
    return DiagnoseRequest(
        route=Route(route="complex", resolved_query="why have quotes been slow for half an hour?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T14:20:00Z",
    )


def test_the_system_that_restarted_just_before_the_trouble_is_its_cause_named_by_its_machine() -> None:
    draft = diagnose_digest(_ask(_digest(restarted=True)))
    assert draft.root_cause is not None
    assert draft.root_cause.service == "kv-7"
    assert "the process restarted at 2026-01-01T13:42:00Z" in draft.root_cause.statement
    assert any("restarted" in f.statement for f in draft.findings)


def test_without_the_restart_the_loud_caller_stays_the_answer() -> None:
    draft = diagnose_digest(_ask(_digest(restarted=False)))
    assert draft.root_cause is not None and draft.root_cause.service == "quotes"


def _suspect(job: str, metric: str, *instances: str) -> Suspect:
    return Suspect(
        service=job,
        anomalies=[
            _moved(metric, {"job": job, "instance": i}, "2026-01-01T13:42:00Z", 1, 9) for i in instances
        ],
    )


def test_a_job_called_after_its_software_is_named_by_its_one_machine() -> None:
    assert software_host(_suspect("mysqld", "rate(mysql_global_status_questions)", "db-3:9104")) == "db-3"
    assert software_host(_suspect("node", "node_load1", "web-2.example.net:9100")) == "web-2.example.net"


def test_a_job_that_names_its_own_system_or_several_machines_keeps_its_name() -> None:
    assert software_host(_suspect("checkout", "http_requests_total", "checkout-1:8080")) is None
    assert software_host(_suspect("mysqld", "mysql_up", "db-3:9104", "db-4:9104")) is None
    assert software_host(_suspect("mysqld", "mysql_up", "10.0.4.2:9104")) is None
    assert software_host(_suspect("node", "node_load1", "localhost:9100")) is None


def test_a_restart_is_not_over_while_the_trouble_it_began_goes_on() -> None:
    # Only the cache's restart says anything about it (no line of its own since): still the cause.
    digest = _digest(restarted=True)
    only_restart = [a for a in digest.anomalies if a.metric != "kvcache_current_items"]
    draft = diagnose_digest(_ask(replace(digest, anomalies=only_restart)))
    assert draft.root_cause is not None and draft.root_cause.service == "kv-7"


def _backlog(*, ended: bool) -> Digest:
    pending = _moved(
        "queue_pending", {"job": "broker", "queue": "picks"}, "2026-01-01T12:49:00Z", 215, 24_045
    )
    if ended:
        pending = replace(pending, recent=230, event="ended", ended_at="2026-01-01T13:38:00Z")
    return Digest(
        anomalies=[pending],
        log_patterns=[
            LogPattern(
                evidence_id="logs-1",
                service="picker",
                level="warn",
                template="timeout fetching batch from broker",
                count=88,
                first_seen="2026-01-01T12:48:33Z",
                last_seen="2026-01-01T13:36:00Z",
                example="timeout fetching batch from broker",
            ),
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="PendingHigh",
                service="broker",
                severity="warning",
                status="resolved",
                count=1,
                instances=[],
                first_started="2026-01-01T12:55:00Z",
                summary="pending above 5000",
                labels={"alertname": "PendingHigh", "job": "broker"},
                ended_at="2026-01-01T13:40:00Z",
            ),
        ],
    )


def test_a_backlog_that_drained_with_its_errors_over_is_healthy_now() -> None:
    read = [
        EvidenceRef(id=i, source=source, tool=tool, title=tool, status="OK", summary="")
        for i, source, tool in [
            ("alerts-1", "alerts", "list_alerts"),
            ("metrics-5", "metrics", "read_metric"),
            ("logs-1", "logs", "query_logs"),
        ]
    ]
    draft = diagnose_digest(replace(_ask(_backlog(ended=True)), evidence=read))
    assert draft.verdict == "healthy" and draft.root_cause is None
    # A load that moved between members (a failover) at that moment is over the same way.
    moved = _backlog(ended=False)
    moved = replace(moved, anomalies=[replace(a, event="moved") for a in moved.anomalies])
    assert diagnose_digest(replace(_ask(moved), evidence=read)).verdict == "healthy"
    still = diagnose_digest(replace(_ask(_backlog(ended=False)), evidence=read))
    assert still.verdict == "incident" and still.root_cause is not None


def _alerted(job: str, alertname: str, instance: str) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1",
        alertname=alertname,
        service=job,
        severity="critical",
        status="firing",
        count=1,
        instances=[instance],
        first_started="2026-01-01T13:40:00Z",
        summary="",
        labels={"alertname": alertname, "job": job, "instance": instance},
    )


def test_the_alerts_one_machine_names_a_software_job_their_words_name() -> None:
    # Only an alert: its name's first word is the job's.
    alone = Suspect(
        service="node", alerts=[_alerted("node", "NodeFilesystemAlmostOutOfSpace", "thumbs-3:9100")]
    )
    assert software_host(alone) == "thumbs-3"
    # Series of two members (spelled by the exporter), an alert on one: the alert's machine.
    lagging = _suspect("postgres", "pg_replication_lag", "db_replica_2:9187", "db_primary:9187")
    lagging.alerts = [_alerted("postgres", "PostgresReplicationLagHigh", "db-replica-2")]
    assert software_host(lagging) == "db-replica-2"


def test_a_system_named_by_an_application_label_is_no_software_job() -> None:
    labels = {"application": "recount", "instance": "recount-28190-x7q"}
    moved = _moved("recount_rows_total", {"job": "recount"}, "2026-01-01T13:42:00Z", 1, 9)
    named = Suspect(service="recount", anomalies=[replace(moved, labels=labels, service="recount")])
    assert software_host(named) is None
    # With its scrape job beside the name, still the name's.
    both = replace(moved, labels={**labels, "job": "recount"}, service="recount")
    assert software_host(Suspect(service="recount", anomalies=[both])) is None


def test_a_dependency_known_by_address_whose_telemetry_stopped_is_the_cause() -> None:
    gone = {"job": "secrets", "instance": "10.12.3.40:8200"}
    silent = replace(
        _moved("secrets_core_active", gone, "2026-01-01T13:17:00Z", 1, 1),
        event="silent",
        ratio=0.0,
        direction="down",
    )
    refused = (
        'signing failed: Put "https://10.12.3.40:8200/v1/transit/sign/pdf": dial tcp: connection refused'
    )
    digest = Digest(
        anomalies=[
            silent,
            _moved("http_request_duration_seconds_p99", APP, "2026-01-01T13:13:00Z", 0.12, 2.4),
        ],
        log_patterns=[
            LogPattern(
                evidence_id="logs-1",
                service="quotes",
                level="error",
                template=refused,
                count=202,
                first_seen="2026-01-01T13:19:43Z",
                last_seen="2026-01-01T14:19:00Z",
                example=refused,
            ),
        ],
    )
    draft = diagnose_digest(_ask(digest))
    assert draft.root_cause is not None and draft.root_cause.service == "secrets"
    assert "stopped reporting at 2026-01-01T13:17:00Z" in draft.root_cause.statement
