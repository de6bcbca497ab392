"""Who the trouble started with when the evidence does not say it by name: a caller whose errors fail
on the far side of a call, a numbered member of a named system, and stray lines beside a surge."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.suspects import rank_suspects
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly


def _pattern(service: str, template: str, count: int, first: str, level: str = "ERROR") -> LogPattern:
    return LogPattern(
        evidence_id="logs-1",
        service=service,
        level=level,
        template=template,
        count=count,
        first_seen=first,
        last_seen="2026-01-01T08:25:00Z",
        example=template,
    )


def _alert(name: str, service: str, summary: str, at: str) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1",
        alertname=name,
        service=service,
        severity="critical",
        status="firing",
        count=1,
        instances=[service],
        first_started=at,
        summary=summary,
    )


PROXY_ERRORS = _pattern(
    "edge",
    "SSL_do_handshake() failed (certificate verify failed) while SSL handshaking to upstream 10.1.9.20:8443",
    120,
    "2026-01-01T08:00:00Z",
)
CERT_ALERT = _alert(
    "ProbeCertificateExpired", "ledger-api", "SSL certificate has expired for ledger-api", "2026-01-01T08:03Z"
)


def _ask(digest: Digest) -> DiagnoseRequest:
    return DiagnoseRequest(
        route=Route(route="complex", resolved_query="the portal answers 502 since 08:00, why?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T08:30:00Z",
    )


def test_a_callers_errors_at_its_upstream_point_to_the_system_failing_the_same_way() -> None:
    draft = diagnose_digest(_ask(Digest(alert_groups=[CERT_ALERT], log_patterns=[PROXY_ERRORS])))
    assert draft.root_cause is not None
    assert draft.root_cause.service == "ledger-api"
    assert draft.root_cause.category == "tls"
    assert "errors in edge fail at their upstream the same way" in draft.root_cause.statement
    relay = [f for f in draft.findings if f.statement.startswith("edge errors fail at its upstream")]
    assert relay and relay[0].evidence_ids == ["logs-1"]


def test_a_different_failure_mode_elsewhere_is_not_the_far_side() -> None:
    disk = _alert("VolumeAlmostFull", "ledger-api", "volume /data is 97% full", "2026-01-01T08:03:00Z")
    ranking = rank_suspects(Digest(alert_groups=[disk], log_patterns=[PROXY_ERRORS]))
    assert ranking.ranked[0].service == "edge"
    assert not ranking.ranked[0].blames


def test_a_numbered_member_of_a_named_system_is_that_system() -> None:
    member = _alert("High5xxRate", "edge-1", "5xx ratio 91% on edge-1", "2026-01-01T08:05:00Z")
    ranking = rank_suspects(Digest(alert_groups=[member], log_patterns=[PROXY_ERRORS]))
    assert [s.service for s in ranking.ranked] == ["edge"]
    assert ranking.ranked[0].alerts == [member]
    assert not ranking.herrings


def test_stray_lines_beside_a_surge_do_not_set_its_onset() -> None:
    """Three timeouts before a database's parameter change do not make the caller's trouble older
    than the change that refused its connections."""
    db_change = _pattern(
        "ferry-db", "Updated parameter max_connections to 120 in DB parameter group pg-custom", 1,
        "2026-01-01T07:53:00Z", level="INFO",
    )  # fmt: skip
    refused = _pattern("booking", "FATAL: sorry, too many clients already", 67, "2026-01-01T07:57:00Z")
    stray = _pattern("booking", "gate call timeout after 3000ms", 3, "2026-01-01T07:38:00Z", level="WARN")
    connections = MetricAnomaly(
        evidence_id="metrics-1",
        metric="DatabaseConnections",
        labels={"DBInstanceIdentifier": "ferry-db"},
        service="ferry-db",
        baseline=270.0,
        recent=117.0,
        peak=313.0,
        change_at="2026-01-01T07:55:00Z",
        direction="down",
        ratio=0.43,
        score=9.0,
    )
    digest = Digest(anomalies=[connections], log_patterns=[refused, stray, db_change])
    ranking = rank_suspects(digest)
    assert [s.service for s in ranking.ranked] == ["ferry-db", "booking"]
    booking = ranking.ranked[1]
    assert booking.onset is not None and booking.onset.isoformat().startswith("2026-01-01T07:57")


def test_a_clients_database_errors_point_to_the_database_failing_the_same_way() -> None:
    """One line names whom it called ("SQL Error: 1205"), another what failed there ("deadlock
    victim"); the database's own series and alert say deadlocks: it is the root cause."""
    sql = _pattern("billing-api", "SQL Error: 1205, SQLState: 40001", 105, "2026-01-01T08:01:00Z", "WARN")
    victim = _pattern(
        "billing-api",
        "Transaction (Process ID 71) was deadlocked on lock resources and was chosen as the deadlock victim",
        67,
        "2026-01-01T08:02:00Z",
    )
    alert = _alert("sqldb-deadlocks", "billing-db", "deadlocks above 3 per minute", "2026-01-01T08:05Z")
    deadlocks = MetricAnomaly(
        evidence_id="metrics-1",
        metric="deadlocks",
        labels={"resource_name": "billing-db"},
        service="billing-db",
        baseline=0.0,
        recent=6.0,
        peak=9.0,
        change_at="2026-01-01T08:00:00Z",
        direction="up",
        ratio=1e6,
        score=20.0,
    )
    draft = diagnose_digest(
        _ask(Digest(anomalies=[deadlocks], alert_groups=[alert], log_patterns=[sql, victim]))
    )
    assert draft.root_cause is not None
    assert draft.root_cause.service == "billing-db"
    assert draft.root_cause.category == "slow_query"  # the locks tag


def test_a_settings_update_just_before_exhaustion_is_a_configuration_cause() -> None:
    update = _pattern(
        "ledger-db",
        'instances.update resource="instances/ledger-db" request.settings.databaseFlags=[{name:"limit"}]',
        1,
        "2026-01-01T07:58:00Z",
        "INFO",
    )
    refused = _pattern("ledger-db", "FATAL: sorry, too many clients already", 40, "2026-01-01T08:00:00Z")
    draft = diagnose_digest(_ask(Digest(log_patterns=[update, refused])))
    assert draft.root_cause is not None and draft.root_cause.service == "ledger-db"
    assert draft.root_cause.category == "configuration_error"


def test_a_platforms_event_about_a_system_is_a_change_to_that_system() -> None:
    """A deploy tool logs the rollout under its own name; the system it names changed, and its
    errors right after make it the cause of what the question's system shows."""
    rollout = _pattern(
        "deployer", "Deployment/report-worker: Scaled up replica set report-worker-7b2c41 to 3", 4,
        "2026-01-01T07:41:00Z", "INFO",
    )  # fmt: skip
    failing = _pattern(
        "report-worker", "Task render_report raised unexpected: KeyError('unit')", 200, "2026-01-01T07:41:46Z"
    )
    overdue = _pattern("portal", "report overdue waiting_for=39m", 18, "2026-01-01T08:03:17Z", "WARN")
    request = DiagnoseRequest(
        route=Route(
            route="complex",
            resolved_query="reports stopped at 07:45; portal shows them pending. What happened?",
        ),
        evidence=[],
        digest=Digest(log_patterns=[rollout, failing, overdue]),
        now="2026-01-01T08:30:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    assert draft.root_cause.service == "report-worker"
    assert draft.root_cause.category == "bad_deploy"


def _zk_anomaly(host: str) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-1",
        metric="avg_latency",
        labels={"job": "coordinator", "instance": f"{host}:7000"},
        service=host,
        baseline=0.5,
        recent=120.0,
        peak=130.0,
        change_at="2026-01-01T08:00:00Z",
        direction="up",
        ratio=240.0,
        score=30.0,
    )


def test_an_exporter_jobs_alert_on_one_instance_is_that_instances_and_a_question_picks_its_side() -> None:
    """`job=coordinator instance=coord-2:7000` fires; coord-2 logs slow fsyncs under its own name.
    Brokers whose own product name is in their errors do not blame their own job, and "what is wrong
    with the coordinator side?" is answered with the coordinator in trouble."""
    alert = AlertGroup(
        evidence_id="alerts-1",
        alertname="CoordinatorLatencyHigh",
        service="coordinator",
        severity="warning",
        status="firing",
        count=1,
        instances=["coord-2:7000"],
        first_started="2026-01-01T08:02:00Z",
        summary="avg_latency on coord-2:7000 is 95 ms",
        labels={"alertname": "CoordinatorLatencyHigh", "job": "coordinator", "instance": "coord-2:7000"},
    )
    fsync = _pattern(
        "coord-2", "fsync-ing the write ahead log took 4025ms", 90, "2026-01-01T08:00:30Z", "WARN"
    )
    broker_errors = _pattern(
        "broker-1", "[Client broker] session to coordinator timed out", 10, "2026-01-01T08:05:00Z"
    )
    broker_alert = AlertGroup(
        evidence_id="alerts-1",
        alertname="BrokerSessionExpiries",
        service="broker",
        severity="page",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T08:09:00Z",
        summary="brokers expire coordinator sessions",
        labels={"alertname": "BrokerSessionExpiries", "job": "broker"},
    )
    digest = Digest(
        anomalies=[_zk_anomaly("coord-2")],
        alert_groups=[alert, broker_alert],
        log_patterns=[fsync, broker_errors],
    )
    ranking = rank_suspects(digest)
    coord = next(s for s in ranking.ranked if s.service == "coord-2")
    assert [g.alertname for g in coord.alerts] == ["CoordinatorLatencyHigh"]
    request = DiagnoseRequest(
        route=Route(
            route="complex",
            resolved_query="Brokers keep losing sessions. What is wrong with the coordinator side?",
        ),
        evidence=[],
        digest=digest,
        now="2026-01-01T08:30:00Z",
        services=["coordinator", "broker", "coord-2", "broker-1"],
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.service == "coord-2"
    assert draft.root_cause.category == "disk-io"


def test_a_probes_bare_host_and_a_callers_words_are_the_namespaced_system_that_logs() -> None:
    """`qv-` prefixes several systems: the probe's alert on `vault` and the stream `qv-vault` are one
    system, and a caller's "vault: ..." errors point to it."""
    probe = _alert(
        "ProbeTLSExpiring", "vault", "certificate of https://vault:8200 expired", "2026-01-01T08:01:00Z"
    )
    own = _pattern(
        "qv-vault",
        "http: TLS handshake error from 10.0.4.7: remote error: bad certificate",
        40,
        "2026-01-01T08:02:00Z",
    )
    caller = _pattern(
        "qv-payments", "fetch secret failed: vault: x509: certificate has expired", 90, "2026-01-01T08:03:00Z"
    )
    other = _pattern("qv-ledger", "slow flush", 5, "2026-01-01T06:00:00Z", level="WARN")
    ranking = rank_suspects(Digest(alert_groups=[probe], log_patterns=[own, caller, other]))
    assert ranking.ranked[0].service == "qv-vault"
    assert ranking.ranked[0].alerts == [probe]
    assert "qv-payments" in ranking.ranked[0].blamed_by
    assert ranking.aliases["vault"] == "qv-vault"
    draft = diagnose_digest(
        DiagnoseRequest(
            route=Route(route="complex", resolved_query="what is wrong with vault?"),
            evidence=[],
            digest=Digest(alert_groups=[probe], log_patterns=[own, caller, other]),
            now="2026-01-01T08:30:00Z",
        )
    )
    assert draft.root_cause is not None and draft.root_cause.service == "qv-vault"


def test_a_bare_name_two_namespaces_share_stands_for_neither() -> None:
    from graph.analysts.rules.aliases import namespace_aliases

    assert namespace_aliases(["qv-vault", "qv-orders", "kx-vault", "kx-web"]) == {"orders": "qv-orders"}
    assert namespace_aliases(["qv-vault"]) == {}  # one system is no namespace
    assert namespace_aliases(["qv-api", "qv-db", "qv-2"]) == {}  # too short, or a member number


def test_the_same_kind_of_trouble_first_in_one_system_then_in_another_points_to_the_first() -> None:
    """The kernel's NVMe I/O errors at 09:56, then an app's slow fsyncs and deadlines at 09:57: the
    same specific kind (disk I/O), nothing naming anyone; the device came first. A generic kind
    (timeouts in both) links nothing."""
    device = _pattern(
        "kernel", "blk_update_request: I/O error, dev nvme1n1, sector <NUM>", 40, "2026-01-01T07:56:00Z"
    )
    app = _pattern("seats", "journal fsync slow took=4.5s", 120, "2026-01-01T07:57:00Z", level="WARN")
    slow = _alert("SeatsLatencyHigh", "seats", "seats p99 latency above 1s", "2026-01-01T07:58:00Z")
    ranking = rank_suspects(Digest(alert_groups=[slow], log_patterns=[device, app]))
    assert ranking.ranked[0].service == "kernel"
    assert ranking.ranked[0].followed_by == {"seats": app}
    draft = diagnose_digest(_ask(Digest(alert_groups=[slow], log_patterns=[device, app])))
    assert draft.root_cause is not None and draft.root_cause.service == "kernel"
    assert "the same kind of trouble in seats began after it" in draft.root_cause.statement
    with_host = replace(device, host="nc-7")
    hosted = diagnose_digest(_ask(Digest(alert_groups=[slow], log_patterns=[with_host, app])))
    assert hosted.root_cause is not None and hosted.root_cause.statement.startswith("kernel (host=nc-7): ")
    assert any(f.statement.startswith("seats shows the same kind of trouble") for f in draft.findings)
    timeouts = _pattern("kernel", "task blocked: request timed out", 40, "2026-01-01T07:56:00Z")
    late = _pattern("seats", "request timed out after 5s", 120, "2026-01-01T07:57:00Z")
    assert not rank_suspects(Digest(log_patterns=[timeouts, late])).ranked[0].followed_by


def test_a_servers_report_naming_a_blocked_caller_points_from_the_caller_to_the_server() -> None:
    """ "blocked process report: blocked spid 417 (quotes, ...) ; blocking spid 64 (agent job)": the
    server names `quotes` as the one waiting, so `quotes` is the victim, not the server's dependency.
    An alert that stood for days before the incident is no headline of its statement."""
    report = _pattern(
        "sql-07",
        "blocked process report: blocked spid 417 (quotes, lastbatch GetRules) wait LCK_M_SCH_S ; "
        "blocking spid 64 (agent job) lastbatch ALTER INDEX REBUILD",
        60,
        "2026-01-01T08:01:00Z",
        level="WARN",
    )
    timeouts = _pattern("quotes", "GetQuote deadline exceeded after 5s", 200, "2026-01-01T08:02:00Z")
    stale = _alert("DiskSpaceLow", "sql-07", "volume E: under 15% free", "2025-12-30T09:00:00Z")
    digest = Digest(alert_groups=[stale], log_patterns=[report, timeouts])
    ranking = rank_suspects(digest)
    assert ranking.ranked[0].service == "sql-07"
    assert "sql-07" in next(s for s in ranking.ranked if s.service == "quotes").blames
    draft = diagnose_digest(_ask(digest))
    assert draft.root_cause is not None and draft.root_cause.service == "sql-07"
    assert "DiskSpaceLow" not in draft.root_cause.statement
    assert draft.root_cause.category == "slow_query"


def test_an_instance_is_named_by_its_host_and_a_client_named_by_a_server_is_the_caller() -> None:
    """A sender's "452 insufficient storage from relay-1.mail.internal" names the relay exporter's
    instance `relay-1:9154` by its host; a resolver's "client 10.3.2.15#5321: SERVFAIL" names its
    caller, which points to the resolver, not the other way."""
    full = _alert("RelayDiskFull", "relay-1:9154", "spool volume 99% full", "2026-01-01T08:01:00Z")
    sender = _pattern(
        "mailer",
        "deliver failed: 452 4.3.1 insufficient storage from relay-1.mail.internal",
        90,
        "2026-01-01T08:03:00Z",
    )
    ranking = rank_suspects(Digest(alert_groups=[full], log_patterns=[sender]))
    assert ranking.ranked[0].service == "relay-1:9154"
    assert "mailer" in ranking.ranked[0].blamed_by
    caller = _alert(
        "DeferredQueueGrowing", "10.3.2.15:9154", "deferred queue above 500", "2026-01-01T08:02:00Z"
    )
    resolver = _pattern(
        "resolver",
        "client 10.3.2.15#5321: query failed (SERVFAIL) for mx.example",
        80,
        "2026-01-01T08:00:00Z",
    )
    linked = rank_suspects(Digest(alert_groups=[caller], log_patterns=[resolver]))
    assert "resolver" in next(s for s in linked.ranked if s.service == "10.3.2.15:9154").blames
    assert not next(s for s in linked.ranked if s.service == "resolver").blames


def test_a_database_session_user_named_by_the_database_is_its_caller() -> None:
    """A database's "[n1,client=10.40.1.22:51722,user=parcels-api] slow range RPC" names the session's
    user: the caller, which points to the database, never the database to it."""
    api = _pattern(
        "parcels-api", "query failed after 5000ms: SELECT status FROM parcels", 60, "2026-01-01T08:01:00Z"
    )
    database = _pattern(
        "crdb",
        "[n1,client=10.40.1.22:51722,user=parcels-api] slow range RPC: have been waiting 8.03s",
        30,
        "2026-01-01T08:00:00Z",
        "WARN",
    )
    ranking = rank_suspects(Digest(log_patterns=[api, database]))
    assert "crdb" in next(s for s in ranking.ranked if s.service == "parcels-api").blames
    assert not next(s for s in ranking.ranked if s.service == "crdb").blamed_by


def test_an_exporter_jobs_alert_on_a_host_other_systems_errors_name_is_that_hosts() -> None:
    """TargetDown `job=node instance=nas-1:9100` beside a backup's "No route to host nas-1.lan": the
    alert is nas-1's (not the exporter job's), and the backup points to it over a louder CPU alert."""
    down = replace(
        _alert("TargetDown", "node", "nas-1:9100 scrape target is down", "2026-01-01T08:07:00Z"),
        labels={"alertname": "TargetDown", "job": "node", "instance": "nas-1:9100"},
    )
    cpu = _alert("HostHighCpuLoad", "ci-4:9100", "CPU load is > 80% on ci-4", "2026-01-01T08:01:00Z")
    backup = _pattern(
        "nightly-backup",
        "ssh: connect to host nas-1.lan port 22: No route to host",
        6,
        "2026-01-01T08:06:00Z",
    )
    ranking = rank_suspects(Digest(alert_groups=[down, cpu], log_patterns=[backup]))
    nas = next(s for s in ranking.ranked if s.service == "nas-1")
    assert [g.alertname for g in nas.alerts] == ["TargetDown"] and "nightly-backup" in nas.blamed_by
    # The loopback names every exporter of a one-machine setup: it never becomes a system.
    local = replace(down, labels={"alertname": "TargetDown", "job": "node", "instance": "127.0.0.1:9100"})
    said = _pattern("nightly-backup", "connect to 127.0.0.1 port 5432 failed", 6, "2026-01-01T08:06:00Z")
    alone = rank_suspects(Digest(alert_groups=[local], log_patterns=[said]))
    names = {s.service for s in [*alone.ranked, *alone.herrings, *alone.quiet]}
    assert "127.0.0.1" not in names and "node" in names
