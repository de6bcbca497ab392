"""Telemetry read in its authors' own words: an exporter's or collector's series of a system known by
another name, a client's line about a change it received, a caller naming a system by its scrape job,
an election, a store at its quota, a crash loop's restarts, and the error the statement quotes."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.categories import categorize
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.suspects import rank_suspects
from graph.analysts.rules.vocabulary import CHANGE, CONFIG_CHANGE
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest


def test_a_cluster_exporters_series_belong_to_the_cluster_its_alerts_and_lines_name() -> None:
    """`job=searchd` reads the cluster `docs-search` (its `cluster` label, its exporter named after it)."""
    labels = {"job": "searchd", "cluster": "docs-search", "instance": "docs-search-exporter:9114"}
    digest = Digest(
        anomalies=[move("es_cluster_unassigned_shards", "searchd", "2026-03-01T10:01:00Z", labels)],
        alert_groups=[
            alert("SearchDiskHigh", "docs-search", "2026-03-01T09:40:00Z", {"cluster": "docs-search"}, "disk")
        ],
        log_patterns=[lines("docs-search", "disk watermark exceeded on data-2", "2026-03-01T09:35:00Z")],
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
        alert_groups=[alert("GateHigh401Rate", "gate", "2026-03-01T10:09:00Z", {"job": "gate"}, "401s")],
        log_patterns=[
            lines(
                "gate",
                f"{client_line} toggles refreshed, changed: [strict-aud]",
                "2026-03-01T10:05:10Z",
                3,
                level="info",
            ),
            lines(
                "gate", "token rejected: aud [mobile] not in allowed audiences", "2026-03-01T10:05:35Z", 170
            ),
            lines(
                "flagd", "Feature toggle strict-aud updated by dana", "2026-03-01T10:05:02Z", 1, level="info"
            ),
        ],
    )


def test_a_clients_line_about_a_change_it_received_is_its_own_change() -> None:
    """ "flagd: toggles refreshed" in the gateway's lines: the gateway took the change from flagd."""
    gate = {s.service: s for s in rank_suspects(_toggled("flagd:")).ranked}["gate"]
    assert [p.template[:6] for p in gate.changes] == ["flagd:"]
    draft = diagnose_digest(ask("Mobile logins fail with 401 since ~10:05, why?", _toggled("flagd:")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("gate", "configuration_error")
    # A platform's line naming another system mid-sentence is still about that system.
    named = rank_suspects(_toggled("sync with flagd done;")).ranked
    assert all(not s.changes for s in named if s.service == "gate")


def test_a_caller_naming_a_system_by_its_scrape_job_is_quoted_with_the_job_and_its_evidence() -> None:
    labels = {"job": "searchd", "instance": "docs-search-exporter:9114", "cluster": "docs-search"}
    digest = Digest(
        anomalies=[move("es_cluster_unassigned_shards", "searchd", "2026-03-01T10:01:00Z", labels)],
        alert_groups=[],
        log_patterns=[
            lines(
                "indexer", "bulk failed: searchd exception [cluster_block_exception]", "2026-03-01T10:38:00Z"
            ),
            replace(
                lines("docs-search", "flood stage disk watermark exceeded", "2026-03-01T10:00:00Z"),
                evidence_id="logs-3",
            ),
            replace(lines("web", "upstream reco timed out", "2026-03-01T08:00:00Z", 3), evidence_id="logs-4"),
        ],
    )
    asked = ask("Why are edits not indexed?", digest)
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
            move("cloud_sql_workers_percent", "cloud-metrics-exporter", "2026-03-01T10:40:00Z", labels)
        ],
        alert_groups=[
            alert(
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
    other = alert("SrvDown", "billing-srv", "2026-03-01T10:42:00Z", {}, "down")
    mixed = replace(digest, anomalies=[both], alert_groups=[*digest.alert_groups, other])
    assert "cloud-metrics-exporter" in [s.service for s in rank_suspects(mixed).ranked]


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


def test_a_store_at_its_quota_is_storage_and_a_separate_incident_shows_what_its_callers_say() -> None:
    assert categorize("etcdBackendQuotaLowSpace\nalarm raised NOSPACE", changed=False) == "disk_full"
    assert categorize("etcdserver: mvcc: database space exceeded", changed=False) == "disk_full"
    digest = Digest(
        alert_groups=[
            alert(
                "StoreQuotaLowSpace", "kv-store", "2026-03-01T10:01:00Z", {"job": "kv-store"}, "running full"
            )
        ],
        log_patterns=[
            lines(
                "notifier",
                'push failed: Post "https://gw.corp.internal/v1": no such host',
                "2026-03-01T09:57:00Z",
            ),
            lines(
                "deployer",
                "sync failed: upstream error: mvcc: database space exceeded",
                "2026-03-01T10:09:00Z",
            ),
        ],
    )
    draft = diagnose_digest(ask("Why is the notifier failing?", digest))
    said = " ".join(f.statement for f in draft.findings)
    assert draft.root_cause is not None and draft.root_cause.service == "notifier"
    assert "https://gw.corp.internal/v1" in said  # a quoted URL is kept whole
    assert "database space exceeded" in said  # the separate incident in its callers' words


def test_a_start_line_after_the_first_crash_is_a_restart_not_a_release() -> None:
    """A poison message panics the archiver; systemd restarts it, each start logging its version."""

    def crashing(started: str) -> Digest:
        return Digest(
            log_patterns=[
                lines(
                    "archiver",
                    "panic: runtime error: index out of range [3] with length 3",
                    "2026-03-01T10:52:03Z",
                    10,
                ),
                lines(
                    "supervisor",
                    "archiver.service: Main process exited, code=exited, status=2",
                    "2026-03-01T10:52:03Z",
                    10,
                ),
                replace(
                    lines("archiver", "archiver v1.4.2 starting, queue=events", started, 8, level="info"),
                    last_seen="2026-03-01T10:56:00Z",
                ),
            ]
        )

    draft = diagnose_digest(ask("Why did archiving stop?", crashing("2026-03-01T10:52:37Z")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("archiver", "crashloop")
    released = diagnose_digest(ask("Why did archiving stop?", crashing("2026-03-01T10:40:00Z")))
    assert released.root_cause is not None and released.root_cause.category == "bad_deploy"


def test_the_statement_quotes_the_error_that_says_what_the_tag_says() -> None:
    """Two heap-space errors beside a hundred pool warnings: the memory tag's statement quotes them."""
    digest = Digest(
        alert_groups=[
            alert("JvmHeapNearMax", "seats", "2026-03-01T10:13:00Z", {"job": "seats"}, "heap at 95%")
        ],
        log_patterns=[
            lines(
                "seats",
                "HikariPool-1 - Thread starvation or clock leap detected",
                "2026-03-01T09:30:00Z",
                119,
                level="warn",
            ),
            lines(
                "seats",
                "Terminating due to java.lang.OutOfMemoryError: Java heap space",
                "2026-03-01T10:44:00Z",
                2,
            ),
        ],
    )
    draft = diagnose_digest(ask("Why do seat holds fail?", digest))
    assert draft.root_cause is not None and draft.root_cause.category == "memory_leak"
    assert "OutOfMemoryError" in draft.root_cause.statement


def test_a_pods_series_scraped_with_its_node_stay_the_workloads() -> None:
    node = {"job": "node-exporter", "instance": "pool-b-3:9100", "mountpoint": "/var"}
    other = {"job": "node-exporter", "instance": "pool-a-1:9100", "mountpoint": "/var"}
    pod = {"job": "kubelet", "node": "pool-b-3", "namespace": "shop", "pod": "cart-7d9f8c6b5-x2k4p"}
    digest = Digest(
        anomalies=[
            move("node_filesystem_avail_bytes", "node-exporter", "2026-03-01T10:01:00Z", node),
            move("node_load1", "node-exporter", "2026-03-01T08:00:00Z", other),
            move("container_cpu_usage_seconds", "cart", "2026-03-01T10:02:00Z", pod),
        ]
    )
    ranking = rank_suspects(digest)
    everyone = [*ranking.ranked, *ranking.herrings, *ranking.quiet]
    owners = {s.service: [a.metric for a in s.anomalies] for s in everyone}
    assert owners.get("cart") == ["container_cpu_usage_seconds"]
    assert "container_cpu_usage_seconds" not in owners.get("pool-b-3", [])


def test_compactions_falling_behind_are_saturation_not_the_latency_they_cause() -> None:
    symptoms = "request latency p99 rose\nG1 Young Generation GC in 1200ms"
    assert categorize(f"CassandraCompactionTaskPending\n{symptoms}", changed=False) == "saturation"
    assert categorize(symptoms, changed=False) == "latency"


def test_a_nil_pointer_panic_after_a_release_is_the_release_not_memory() -> None:
    panic = "panic: runtime error: invalid memory address or nil pointer dereference"
    released = "Started container api image api:v2.15.0"
    assert categorize(panic, changed=True, change_text=released) == "bad_deploy"
    assert categorize(panic, changed=False) != "memory_leak"
    assert categorize("java.lang.OutOfMemoryError: Java heap space", changed=False) == "memory_leak"


def test_a_server_out_of_client_slots_is_a_connections_fault() -> None:
    signals = "\n".join(
        [
            'alert CacheRejectedConnections ("Cache rejected connections")',
            "cache_config_maxclients fell from 10000 to 4064",
            "maxclients has been reduced to 4064 to compensate for low ulimit",
            "Cachedb::CommandError: ERR max number of clients reached",
        ]
    )
    assert categorize(signals, changed=False) == "connection_pool_exhaustion"


def test_as_many_signals_each_the_category_said_first_wins_over_more_cue_words() -> None:
    """A replica's lag alarm and lag series, beside a read-IOPS and a read-latency move: as many signals
    each, and the alert (said first) speaks of replication."""
    text = "\n".join(
        ["db-replica-ReplicaLag-ALARM Threshold Crossed", "ReplicaLag", "ReadIOPS", "ReadLatency"]
    )
    assert categorize(text, changed=False) == "replication"
    assert categorize("\n".join(["ReadIOPS", "ReadLatency", "ReplicaLag"]), changed=False) == "disk-io"


def test_a_java_chain_error_is_tls_and_a_sentinels_switch_is_a_failover() -> None:
    pkix = "webhook delivery failed: PKIX path building failed: unable to find valid certification path"
    assert categorize(pkix, changed=False) == "tls"
    assert categorize("+switch-master rate-cache 10.0.0.4 6379 10.0.0.7 6379", changed=False) == "failover"


def test_a_failover_wins_over_the_lost_replica_links_it_causes() -> None:
    lines = [
        "# Connection with master lost.",
        "# +sdown slave 10.0.4.11:6379 10.0.4.11 6379 @ rate-cache 10.0.4.12 6379",
        "# +switch-master rate-cache 10.0.4.11 6379 10.0.4.12 6379",
        "cache_connected_slaves",
    ]
    assert categorize("\n".join(lines), changed=False) == "failover"
    assert categorize("\n".join(lines[:2] + lines[3:]), changed=False) == "replication"


def test_a_cloud_alarm_named_after_a_systems_machine_is_that_systems() -> None:
    """`cache-01-StatusCheckFailed-ALARM`, labelled only with the instance's cloud id, is about the
    machine the cache's series are scraped from: the cache's trouble, not a bystander's."""
    series = move("up", "cache", "2026-01-01T09:12:00Z", {"instance": "cache-01:9121", "job": "cache"})
    alarm = alert(
        "cache-01-StatusCheckFailed-ALARM", "i-0f3a9b2c7d1e8456", "2026-01-01T09:11:00Z",
        {"InstanceId": "i-0f3a9b2c7d1e8456"}, "Threshold Crossed: 2 datapoints were >= 1.0",
    )  # fmt: skip
    ranking = rank_suspects(Digest(anomalies=[series], alert_groups=[alarm]))
    owner = next(s for s in [*ranking.ranked, *ranking.herrings] if s.service == "cache")
    assert [g.alertname for g in owner.alerts] == ["cache-01-StatusCheckFailed-ALARM"]


def test_an_alert_known_only_by_an_address_is_the_system_scraped_there_when_it_speaks_of_it() -> None:
    """`BrokerMemoryHighWatermark{instance="mq-02:15692"}` beside `job=broker` series from mq-02: the
    broker's alert, not a system called "mq-02:15692"; a disk alert beside a host agent's series
    there stays the host's."""
    series = move("broker_alarms_memory_used_watermark", "broker", "2026-01-01T09:15:00Z",
                  {"instance": "mq-02:15692", "job": "broker"})  # fmt: skip
    alarm = alert("BrokerMemoryHighWatermark", "mq-02:15692", "2026-01-01T09:16:00Z",
                  {"instance": "mq-02:15692"}, "memory alarm on mq-02")  # fmt: skip
    ranking = rank_suspects(Digest(anomalies=[series], alert_groups=[alarm]))
    names = {s.service for s in [*ranking.ranked, *ranking.herrings]}
    assert "mq-02:15692" not in names
    owner = next(s for s in ranking.ranked if s.service == "broker")
    assert [g.alertname for g in owner.alerts] == ["BrokerMemoryHighWatermark"] and owner.anomalies == [
        series
    ]
    disk = alert("DiskAlmostFull", "mq-02:15692", "2026-01-01T09:16:00Z", {"instance": "mq-02:15692"}, "disk")
    other = rank_suspects(Digest(anomalies=[series], alert_groups=[disk]))
    assert "mq-02:15692" in {s.service for s in [*other.ranked, *other.herrings]}


def test_throttling_is_spent_capacity_and_a_cpus_throttling_stays_cpu() -> None:
    assert categorize("DynamoDBWriteThrottling table t is throttling writes", changed=False) == "saturation"
    assert categorize("aws_dynamodb_write_throttle_events_sum", changed=False) == "saturation"
    provisioned = (
        "ProvisionedThroughputExceededException: An error occurred (ProvisionedThroughputExceededException) "
        "when calling the BatchWriteItem operation: The level of configured provisioned throughput for the "
        "table was exceeded."
    )
    assert categorize(provisioned, changed=False) == "saturation"  # "configured" is no config error
    assert categorize("CPUThrottlingHigh CPU throttling high on pod x", changed=False) == "cpu_saturation"
    assert categorize("rate(container_cpu_cfs_throttled_seconds_total)", changed=False) == "cpu_saturation"


def test_a_consensus_group_without_a_leader_is_a_failover_and_a_quorum_read_is_not() -> None:
    """Raft's "No cluster leader" and a lost quorum are an election that cannot finish; a read at a
    quorum consistency that timed out says nothing about a leader."""
    raft = [
        '[ERROR] agent: Coordinate update error: error="No cluster leader"',
        "[ERROR] agent.server.raft: failed to make requestVote RPC: target=10.0.0.3:8300 error=i/o timeout",
    ]
    assert categorize("\n".join(raft), changed=False) == "failover"
    read = "ReadTimeoutException: timeout during read query at consistency LOCAL_QUORUM"
    assert categorize(read, changed=False) != "failover"


def test_slow_queries_in_an_alerts_plural_and_a_slow_logs_entries_outweigh_one_reverse_lookup_warning() -> (
    None
):
    said = [
        "MySQLSlowQueries MySQL server has new slow queries",
        "# User@Host: catalog[catalog] @ [10.88.7.96] # Query_time: 4.2 Lock_time: 0.0",
        "[Warning] IP address '10.88.7.96' could not be resolved: Name or service not known",
    ]
    assert categorize("\n".join(said), changed=False) == "slow_query"


def test_a_configuration_managers_run_just_before_the_trouble_is_a_configuration_change() -> None:
    """A Salt state run, a Puppet catalog, a Chef or Ansible run apply configuration and ship no release:
    SERVFAIL lines after one are a configuration error; after an image rollout they keep their own kind."""
    symptom = "resolver[757]: [757:0] error: SERVFAIL <orders.internal. A IN>"
    for run in (
        "[salt.master][INFO] Published command details {'fun': 'state.apply', 'arg': ['edge.forwarders']}",
        "Notice: Applied catalog in 12.41 seconds",
        "Starting Chef Infra Client, version 18.2.7 (chef-client run)",
        "ansible-playbook site.yml --limit edge-b",
    ):
        assert categorize(symptom, changed=True, change_text=run) == "configuration_error", run
    rollout = "deployment.apps/resolver image updated to registry.local/resolver:2.4.1"
    assert categorize(symptom, changed=True, change_text=rollout) == "dns"
