"""An orchestrator's own words: its replica sets count pods (no replication), a manifest applied by a
deploy tool changes the system whose configuration object it names, and a host name that does not
resolve in a database client's words is DNS."""

from __future__ import annotations

from graph.analysts.rules.categories import categorize
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.vocabulary import CHANGE
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest


def test_a_replica_set_of_pods_is_no_replication() -> None:
    text = 'ReplicaSet "tally-7d9f" has timed out progressing.\nScaled up replica set tally-7d9f to 2'
    assert categorize(text, changed=False) != "replication"
    assert categorize("replica lag rose to 40 s on the standby", changed=False) == "replication"


def test_a_host_name_that_does_not_resolve_is_dns_in_a_database_clients_words() -> None:
    line = 'could not translate host name "tally-pg.internal" to address: Name or service not known'
    assert categorize(line, changed=False) == "dns"


def test_kubectl_applying_a_systems_config_object_is_that_systems_configuration_change() -> None:
    for line in ("$ kubectl apply -f deploy/tally-config.yaml", "configmap/tally-config configured"):
        assert CHANGE.search(line), line
    assert not CHANGE.search("Created container tally")
    labels = {"deployment": "tally", "namespace": "ops"}
    digest = Digest(
        anomalies=[
            move("kube_deployment_status_replicas_unavailable", "tally", "2026-03-01T10:06:00Z", labels)
        ],
        alert_groups=[alert("KubePodCrashLooping", "tally", "2026-03-01T10:09:00Z", labels, "crash looping")],
        log_patterns=[
            lines("deployer", "configmap/tally-config configured", "2026-03-01T10:04:00Z", 1, level="info"),
            # The rollout the config map started: a restart of the same version, after the change.
            lines("tally", "starting tally 4.2.0", "2026-03-01T10:04:30Z", 12, level="info"),
            lines(
                "tally",
                'could not translate host name "tally-pg.internl" to address',
                "2026-03-01T10:04:40Z",
                12,
            ),
        ],
    )
    draft = diagnose_digest(ask("tally pods keep crash looping since 10:05, what happened?", digest))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("tally", "configuration_error")
    assert "tally-config" in draft.root_cause.statement


def test_cues_start_words_so_a_clock_source_holds_no_locks_and_a_cores_number_no_cpu_load() -> None:
    kernel = "kernel: clocksource: timekeeping watchdog on CPU1: Marking clocksource 'tsc' as unstable"
    assert categorize(kernel, changed=False) not in {"slow_query", "cpu_saturation"}
    assert categorize("free blocks 0 on /dev/sdb", changed=False) != "slow_query"
    assert categorize("lock wait timeout exceeded; try restarting transaction", changed=False) == "slow_query"
    assert categorize("CoreDNS: SERVFAIL for api.internal", changed=False) == "dns"  # a cue ending a name
    assert categorize("cpu usage 97% on node-3", changed=False) == "cpu_saturation"


def test_a_drifting_clock_is_unclassified_not_the_symptoms_error_tag() -> None:
    text = "NodeClockSkewDetected clock offset 6.5 s\nlogins fail: token used before issued"
    assert categorize(text, changed=False) == "unclassified"
    assert categorize("logins fail: token used before issued", changed=False) == "errors"
