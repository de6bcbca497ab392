"""Telemetry read the way its authors wrote it: an exporter's series of a cluster known by another
name, a client's line about the change it received, a question that dates its trouble, an alert on a
machine whose other systems fail the same way, and a caller naming a system by its scrape job."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.suspects import rank_suspects
from graph.analysts.rules.vocabulary import CHANGE, CONFIG_CHANGE, categorize
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

NOW = "2026-03-01T11:00:00Z"


def _ask(question: str, digest: Digest) -> DiagnoseRequest:
    return DiagnoseRequest(
        route=Route(route="complex", resolved_query=question), evidence=[], digest=digest, now=NOW
    )


def _move(metric: str, service: str, at: str, labels: dict[str, str]) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-2",
        metric=metric,
        labels=labels,
        service=service,
        baseline=0.0,
        recent=4.0,
        peak=4.0,
        change_at=at,
        direction="up",
        ratio=1e6,
        score=50.0,
    )


def _alert(name: str, service: str, at: str, labels: dict[str, str], summary: str) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1",
        alertname=name,
        service=service,
        severity="critical",
        status="firing",
        count=1,
        instances=[],
        first_started=at,
        summary=summary,
        labels={"alertname": name, **labels},
    )


def _lines(service: str, text: str, first: str, count: int = 40, **fields: str | None) -> LogPattern:
    return LogPattern(
        evidence_id="logs-2",
        service=service,
        level=fields.pop("level", None) or "error",
        template=text,
        count=count,
        first_seen=first,
        last_seen="2026-03-01T10:59:00Z",
        example=text,
        host=fields.pop("host", None),
    )


def test_a_cluster_exporters_series_belong_to_the_cluster_its_alerts_and_lines_name() -> None:
    """`job=searchd` reads the cluster `docs-search` (its `cluster` label, its exporter named after it)."""
    labels = {"job": "searchd", "cluster": "docs-search", "instance": "docs-search-exporter:9114"}
    digest = Digest(
        anomalies=[_move("es_cluster_unassigned_shards", "searchd", "2026-03-01T10:01:00Z", labels)],
        alert_groups=[
            _alert(
                "SearchDiskHigh", "docs-search", "2026-03-01T09:40:00Z", {"cluster": "docs-search"}, "disk"
            )
        ],
        log_patterns=[_lines("docs-search", "disk watermark exceeded on data-2", "2026-03-01T09:35:00Z")],
    )
    ranked = {s.service: s for s in rank_suspects(digest).ranked}
    assert "searchd" not in ranked
    assert [a.metric for a in ranked["docs-search"].anomalies] == ["es_cluster_unassigned_shards"]
    by_instance = {"job": "searchd", "instance": "docs-search-exporter:9114"}
    moved = replace(digest, anomalies=[replace(digest.anomalies[0], labels=by_instance)])
    assert [a.metric for a in rank_suspects(moved).ranked[0].anomalies] == ["es_cluster_unassigned_shards"]


def test_a_feature_toggle_flipped_is_a_configuration_change() -> None:
    for line in (
        'Feature toggle "auth.strict-aud" updated by dana in environment production: enabled=true',
        "flagd: toggles refreshed (etag 12), changed: [auth.strict-aud]",
    ):
        assert CHANGE.search(line) and CONFIG_CHANGE.search(line), line
    assert not CHANGE.search("token rejected: aud not in allowed audiences")


def _toggled(client_line: str) -> Digest:
    return Digest(
        alert_groups=[_alert("GateHigh401Rate", "gate", "2026-03-01T10:09:00Z", {"job": "gate"}, "401s")],
        log_patterns=[
            _lines(
                "gate",
                f"{client_line} toggles refreshed, changed: [strict-aud]",
                "2026-03-01T10:05:10Z",
                3,
                level="info",
            ),
            _lines(
                "gate", "token rejected: aud [mobile] not in allowed audiences", "2026-03-01T10:05:35Z", 170
            ),
            _lines(
                "flagd", "Feature toggle strict-aud updated by dana", "2026-03-01T10:05:02Z", 1, level="info"
            ),
        ],
    )


def test_a_clients_line_about_a_change_it_received_is_its_own_change() -> None:
    """ "flagd: toggles refreshed" in the gateway's lines: the gateway took the change from flagd."""
    gate = {s.service: s for s in rank_suspects(_toggled("flagd:")).ranked}["gate"]
    assert [p.template[:6] for p in gate.changes] == ["flagd:"]
    draft = diagnose_digest(_ask("Mobile logins fail with 401 since ~10:05, why?", _toggled("flagd:")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("gate", "configuration_error")
    # A platform's line naming another system mid-sentence is still about that system.
    named = rank_suspects(_toggled("sync with flagd done;")).ranked
    assert all(not s.changes for s in named if s.service == "gate")


def _two_problems() -> Digest:
    """A CI runner's disk errors since 09:20 (the most lines), a gateway's rejects since 10:05."""
    return Digest(
        log_patterns=[
            _lines(
                "ci-runner",
                "job failed: mkdir /var/lib/docker: no space left on device",
                "2026-03-01T09:20:00Z",
                300,
            ),
            _lines("gate", "request rejected: upstream returned 401", "2026-03-01T10:05:30Z", 60),
        ]
    )


def test_a_question_that_dates_its_trouble_is_about_what_began_then() -> None:
    draft = diagnose_digest(_ask("Logins fail since ~10:05. What's going on?", _two_problems()))
    assert draft.root_cause is not None and draft.root_cause.service == "gate"
    assert "ci-runner" in draft.summary  # listed as also happening, never substituted
    undated = diagnose_digest(_ask("What's going on?", _two_problems()))
    assert undated.root_cause is not None and undated.root_cause.service == "ci-runner"
    # A cause may begin shortly before the trouble it dates: it keeps its place.
    near = diagnose_digest(_ask("CI fails since 09:30. What's going on?", _two_problems()))
    assert near.root_cause is not None and near.root_cause.service == "ci-runner"


def _inode_alert(errors_host: str) -> Digest:
    """An inode alert since 08:00 on runner-4; a CI agent's disk errors from 09:39, a gateway's from 10:05."""
    labels = {"job": "node", "instance": "runner-4:9100", "mountpoint": "/var/lib/docker"}
    return Digest(
        alert_groups=[
            _alert(
                "NodeFilesystemAlmostOutOfFiles",
                "node",
                "2026-03-01T08:00:00Z",
                labels,
                "less than 5% inodes left",
            )
        ],
        log_patterns=[
            _lines(
                "ci-agent",
                "job failed: mkdir /var/lib/docker/x: no space left on device",
                "2026-03-01T09:39:00Z",
                60,
                host=errors_host,
            ),
            _lines("gate", "request rejected: upstream returned 401", "2026-03-01T10:05:30Z", 170),
        ],
    )


def test_an_alert_on_a_host_port_scopes_a_question_naming_the_host_and_its_systems_errors_follow() -> None:
    question = "CI jobs on runner-4 fail with 'no space left on device'. What's going on?"
    draft = diagnose_digest(_ask(question, _inode_alert("runner-4")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("runner-4", "disk_full")
    assert "ci-agent" in draft.root_cause.statement
    # The same errors on another machine say nothing about this one's alert.
    elsewhere = diagnose_digest(_ask(question, _inode_alert("runner-9")))
    assert elsewhere.root_cause is None and "cause is not established" in elsewhere.summary


def test_a_caller_naming_a_system_by_its_scrape_job_is_quoted_with_the_job_and_its_evidence() -> None:
    labels = {"job": "searchd", "instance": "docs-search-exporter:9114", "cluster": "docs-search"}
    digest = Digest(
        anomalies=[_move("es_cluster_unassigned_shards", "searchd", "2026-03-01T10:01:00Z", labels)],
        alert_groups=[],
        log_patterns=[
            _lines(
                "indexer", "bulk failed: searchd exception [cluster_block_exception]", "2026-03-01T10:38:00Z"
            ),
            replace(
                _lines("docs-search", "flood stage disk watermark exceeded", "2026-03-01T10:00:00Z"),
                evidence_id="logs-3",
            ),
            replace(
                _lines("web", "upstream reco timed out", "2026-03-01T08:00:00Z", 3), evidence_id="logs-4"
            ),
        ],
    )
    asked = _ask("Why are edits not indexed?", digest)
    draft = diagnose_digest(replace(asked, services=["searchd", "indexer", "docs-search", "web"]))
    assert draft.root_cause is not None and draft.root_cause.service == "docs-search"
    blame = next(f for f in draft.findings if "failing dependency" in f.statement)
    assert "searchd, the job docs-search is scraped under," in blame.statement
    assert blame.evidence_ids == ["logs-2", "metrics-2"]
    assert [r.evidence_ids for r in draft.ruled_out if r.service == "web"] == [["logs-4", "metrics-2"]]


def test_a_collector_jobs_series_belong_to_the_one_alerting_system_a_label_names() -> None:
    """`job=cloud-metrics-exporter` neither alerts nor logs; `database_name=billing-db` does."""
    labels = {"job": "cloud-metrics-exporter", "database_name": "billing-db", "resource_group": "rg-1"}
    digest = Digest(
        anomalies=[
            _move("cloud_sql_workers_percent", "cloud-metrics-exporter", "2026-03-01T10:40:00Z", labels)
        ],
        alert_groups=[
            _alert(
                "SqlWorkersHigh",
                "billing-db",
                "2026-03-01T10:42:00Z",
                {"database_name": "billing-db"},
                "workers",
            )
        ],
    )
    ranked = [s.service for s in rank_suspects(digest).ranked]
    assert ranked == ["billing-db"]
    # A label naming two alerting systems names neither.
    both = replace(digest.anomalies[0], labels={**labels, "server_name": "billing-srv"})
    other = _alert("SrvDown", "billing-srv", "2026-03-01T10:42:00Z", {}, "down")
    mixed = replace(digest, anomalies=[both], alert_groups=[*digest.alert_groups, other])
    assert "cloud-metrics-exporter" in [s.service for s in rank_suspects(mixed).ranked]


def test_a_question_scopes_to_the_system_whose_alert_name_holds_its_word() -> None:
    """ "Card checkouts are slow" and `PaymentsCheckoutLatencyHigh` on payments, beside a louder
    incident elsewhere."""
    digest = Digest(
        alert_groups=[
            _alert(
                "PaymentsCheckoutLatencyHigh", "payments", "2026-03-01T10:52:00Z", {"job": "payments"}, "p99"
            ),
            _alert("QueueBacklog", "worker", "2026-03-01T10:20:00Z", {"job": "worker"}, "backlog"),
        ],
        log_patterns=[
            _lines("payments", "charge slow: provider took 7s (budget 2s)", "2026-03-01T10:52:30Z", 30),
            _lines("worker", "task failed: lock wait timeout exceeded", "2026-03-01T10:20:10Z", 300),
        ],
    )
    draft = diagnose_digest(_ask("Card checkouts are slow. What's going on?", digest))
    assert draft.root_cause is not None and draft.root_cause.service == "payments"
    unscoped = diagnose_digest(_ask("What's going on?", digest))
    assert unscoped.root_cause is not None and unscoped.root_cause.service == "worker"


def test_an_election_is_a_failover_even_beside_a_rollout() -> None:
    """A replica set's election (its exporter's `election_date` moved, a member stepped down) is the
    event, not the kernel rollout running on its hosts."""
    signals = "\n".join(
        (
            "mongodb_mongod_replset_member_election_date",
            "replSetStepDown: stepping down from primary",
            "insert failed: NotWritablePrimary",
        )
    )
    assert categorize(signals, changed=True, change_text="kernel 6.1 rollout: next host db-0") == "failover"
    assert categorize("mongodb_connections", changed=True, change_text="kernel 6.1 rollout") != "failover"


def _backlog(broker_errors: bool) -> Digest:
    """A queue backs up from 18:00; its consumer (whose series name the queue) fails on the origin's
    expired certificate; the origin's probe and certificate alerts fire."""
    queue = {"instance": "mq-0:15692", "queue": "origin-sync"}
    lines = [
        _lines(
            "uploader", "sync failed: tls: failed to verify certificate: x509 expired", "2026-03-01T10:22:00Z"
        ),
        _lines("cdn-origin", "SSL_do_handshake() failed: certificate expired", "2026-03-01T10:00:30Z"),
    ]
    if broker_errors:
        lines.append(_lines("mq-0:15692", "disk alarm set: publishers blocked", "2026-03-01T09:59:00Z"))
    return Digest(
        anomalies=[
            _move("mq_queue_messages_ready", "mq-0:15692", "2026-03-01T10:01:00Z", queue),
            _move(
                "rate(origin_sync_uploads_failed_total)",
                "uploader",
                "2026-03-01T10:00:00Z",
                {"job": "uploader"},
            ),
        ],
        alert_groups=[
            _alert("QueueBacklog", "mq-0:15692", "2026-03-01T10:20:00Z", queue, "backlog growing"),
            _alert(
                "ProbeFailed", "cdn-origin", "2026-03-01T10:00:00Z", {"job": "probe"}, "certificate expired"
            ),
        ],
        log_patterns=lines,
    )


def test_a_queue_that_backs_up_is_explained_by_its_failing_consumer_and_what_that_fails_on() -> None:
    question = "Uploads aren't reaching the origin and the origin-sync queue keeps growing. Why?"
    draft = diagnose_digest(_ask(question, _backlog(broker_errors=False)))
    assert draft.root_cause is not None and draft.root_cause.service == "cdn-origin"
    # A broker failing itself is no backlog of a consumer's making.
    failing = diagnose_digest(_ask(question, _backlog(broker_errors=True)))
    assert failing.root_cause is not None and failing.root_cause.service == "mq-0:15692"


def _trickle() -> Digest:
    """A proxy's 503 lines as steady through the read as at its start; its alerts resolved."""
    steady = replace(
        _lines(
            "edge-proxy", "GET /cart 503 upstream cart unavailable", "2026-03-01T09:05:00Z", 200, level="warn"
        ),
        steady=True,
    )
    return Digest(log_patterns=[steady])


def test_steady_lines_answer_why_but_are_background_when_asked_whether_anything_is_wrong() -> None:
    healthy = diagnose_digest(_ask("Paged earlier for the edge. Is it healthy now?", _trickle()))
    assert healthy.root_cause is None and healthy.verdict != "incident"
    asked = diagnose_digest(_ask("Why does the edge keep returning 503s every so often?", _trickle()))
    assert asked.root_cause is not None and asked.root_cause.service == "edge-proxy"
    # A steady trickle beside a firing alert of the same system is its trouble whatever the question.
    firing = replace(
        _trickle(), alert_groups=[_alert("Edge5xx", "edge-proxy", "2026-03-01T10:40:00Z", {}, "5xx")]
    )
    alerted = diagnose_digest(_ask("Is the edge healthy?", firing))
    assert alerted.verdict == "incident"


def test_the_alert_a_question_names_leads_the_statement_beside_another_on_its_machine() -> None:
    disk = {"job": "node", "instance": "web-1:9100", "mountpoint": "/srv/spool"}
    cpu = {"job": "node", "instance": "web-1:9100"}
    digest = Digest(
        alert_groups=[
            _alert("HostHighCpuLoad", "node", "2026-03-01T10:30:00Z", cpu, "load high"),
            replace(
                _alert("HostFilesystemAlmostFull", "node", "2026-03-01T10:40:00Z", disk, "spool filling"),
                identities=["instance=web-1:9100 mountpoint=/srv/spool"],
            ),
        ],
        anomalies=[_move("node_load1", "node", "2026-03-01T10:29:00Z", cpu)],
    )
    draft = diagnose_digest(_ask("why is HostFilesystemAlmostFull firing?", digest))
    assert draft.root_cause is not None
    statement = draft.root_cause.statement
    assert "mountpoint=/srv/spool" in statement
    assert statement.index("HostFilesystemAlmostFull") < statement.index("node_load1")


def _pressure() -> Digest:
    """A CronJob fills /var on pool-b-3 (its node agent's alert and series); the cluster's state
    series says DiskPressure there; a banner was deployed a few minutes before, without trouble."""
    node = {"job": "node-exporter", "instance": "pool-b-3:9100", "mountpoint": "/var"}
    other = {"job": "node-exporter", "instance": "pool-a-1:9100", "mountpoint": "/var"}
    condition = {"job": "kube-state-metrics", "node": "pool-b-3", "condition": "DiskPressure"}
    return Digest(
        anomalies=[
            _move("node_filesystem_avail_bytes", "node-exporter", "2026-03-01T10:01:00Z", node),
            _move("node_load1", "node-exporter", "2026-03-01T08:00:00Z", other),
            _move("kube_node_status_condition", "kube-state-metrics", "2026-03-01T10:18:00Z", condition),
        ],
        alert_groups=[
            _alert("NodeFilesystemAlmostOutOfSpace", "node-exporter", "2026-03-01T10:18:00Z", node, "3% left")
        ],
        log_patterns=[
            _lines(
                "locator",
                "evicted: node pool-b-3 was low on resource ephemeral-storage",
                "2026-03-01T10:20:00Z",
            ),
            replace(
                _lines("banner", "deployed banner v2.4.0", "2026-03-01T10:15:00Z", 1, level="info"),
                last_seen="2026-03-01T10:15:00Z",
            ),
        ],
    )


def test_a_change_told_in_passing_does_not_scope_the_question_and_a_node_condition_is_its_machines() -> None:
    question = (
        "Riders get 'no drivers nearby' since about 10:20. banner was deployed at 10:15, did that break it?"
    )
    draft = diagnose_digest(_ask(question, _pressure()))
    assert draft.root_cause is not None and draft.root_cause.service == "pool-b-3"
    assert "kube_node_status_condition{condition=DiskPressure}" in draft.root_cause.statement


def test_a_store_at_its_quota_is_storage_and_a_separate_incident_shows_what_its_callers_say() -> None:
    assert categorize("etcdBackendQuotaLowSpace\nalarm raised NOSPACE", changed=False) == "disk_full"
    assert categorize("etcdserver: mvcc: database space exceeded", changed=False) == "disk_full"
    digest = Digest(
        alert_groups=[
            _alert(
                "StoreQuotaLowSpace", "kv-store", "2026-03-01T10:01:00Z", {"job": "kv-store"}, "running full"
            )
        ],
        log_patterns=[
            _lines(
                "notifier",
                'push failed: Post "https://gw.corp.internal/v1": no such host',
                "2026-03-01T09:57:00Z",
            ),
            _lines(
                "deployer",
                "sync failed: upstream error: mvcc: database space exceeded",
                "2026-03-01T10:09:00Z",
            ),
        ],
    )
    draft = diagnose_digest(_ask("Why is the notifier failing?", digest))
    said = " ".join(f.statement for f in draft.findings)
    assert draft.root_cause is not None and draft.root_cause.service == "notifier"
    assert "https://gw.corp.internal/v1" in said  # a quoted URL is kept whole
    assert "database space exceeded" in said  # the separate incident in its callers' words


def test_a_start_line_after_the_first_crash_is_a_restart_not_a_release() -> None:
    """A poison message panics the archiver; systemd restarts it, each start logging its version."""

    def crashing(started: str) -> Digest:
        return Digest(
            log_patterns=[
                _lines(
                    "archiver",
                    "panic: runtime error: index out of range [3] with length 3",
                    "2026-03-01T10:52:03Z",
                    10,
                ),
                _lines(
                    "supervisor",
                    "archiver.service: Main process exited, code=exited, status=2",
                    "2026-03-01T10:52:03Z",
                    10,
                ),
                replace(
                    _lines("archiver", "archiver v1.4.2 starting, queue=events", started, 8, level="info"),
                    last_seen="2026-03-01T10:56:00Z",
                ),
            ]
        )

    draft = diagnose_digest(_ask("Why did archiving stop?", crashing("2026-03-01T10:52:37Z")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("archiver", "crashloop")
    released = diagnose_digest(_ask("Why did archiving stop?", crashing("2026-03-01T10:40:00Z")))
    assert released.root_cause is not None and released.root_cause.category == "bad_deploy"


def test_the_statement_quotes_the_error_that_says_what_the_tag_says() -> None:
    """Two heap-space errors beside a hundred pool warnings: the memory tag's statement quotes them."""
    digest = Digest(
        alert_groups=[
            _alert("JvmHeapNearMax", "seats", "2026-03-01T10:13:00Z", {"job": "seats"}, "heap at 95%")
        ],
        log_patterns=[
            _lines(
                "seats",
                "HikariPool-1 - Thread starvation or clock leap detected",
                "2026-03-01T09:30:00Z",
                119,
                level="warn",
            ),
            _lines(
                "seats",
                "Terminating due to java.lang.OutOfMemoryError: Java heap space",
                "2026-03-01T10:44:00Z",
                2,
            ),
        ],
    )
    draft = diagnose_digest(_ask("Why do seat holds fail?", digest))
    assert draft.root_cause is not None and draft.root_cause.category == "memory_leak"
    assert "OutOfMemoryError" in draft.root_cause.statement
