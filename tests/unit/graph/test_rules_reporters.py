"""Whose series an agent or exporter reports: a machine two agents are scraped at (named by a cluster's
`node` label) and its own agent's lines; a consumer group's lag and the consumer it names."""

from __future__ import annotations

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest

NODE = "w-eu-07"
# The container agent on the node: scraped there, labelled with it, logging under its own name.
AGENT_STALLED = move(
    "kubelet_pleg_relist_duration_seconds",
    "kubelet",
    "2026-03-01T10:38:00Z",
    {"job": "kubelet", "instance": f"{NODE}:10250", "node": NODE},
)
HOST_LOAD = move(
    "node_load1",
    "node-exporter",
    "2026-03-01T10:39:00Z",
    {"job": "node-exporter", "instance": f"{NODE}:9100", "node": NODE},
)
NOT_READY = alert(
    "KubeNodeNotReady",
    "kube-state-metrics",
    "2026-03-01T10:41:00Z",
    {"job": "kube-state-metrics", "instance": "10.6.0.41:8080", "node": NODE, "condition": "Ready"},
    "Node is not ready.",
)
PLEG = lines(
    "kubelet",
    'Skipping pod synchronization err="PLEG is not healthy: pleg was last seen active 3m ago"',
    "2026-03-01T10:38:10Z",
    count=25,
)
# A workload on the node, failing after it: its queue fills as its pods there stop answering.
QUEUE = lines("lobby", "rejecting request: lobby queue saturated", "2026-03-01T10:40:51Z", count=78)
LOBBY_ERRORS = alert(
    "LobbyHighErrorRate", "lobby", "2026-03-01T10:43:00Z", {"service": "lobby"}, "5xx above 2%"
)


LOBBY_5XX = move(
    "rate(http_requests_total)", "lobby", "2026-03-01T10:41:00Z", {"service": "lobby", "code": "503"}
)
LOBBY_REPLICAS = move(
    "kube_deployment_status_replicas_unavailable", "lobby", "2026-03-01T10:41:00Z", {"deployment": "lobby"}
)

LOBBY_SLOW = move("lobby_queue_wait_seconds", "lobby", "2026-03-01T10:41:00Z", {"service": "lobby"})


def test_a_node_whose_agent_stalled_is_the_root_cause_not_the_workload_after_it() -> None:
    digest = Digest(
        anomalies=[AGENT_STALLED, HOST_LOAD, LOBBY_5XX, LOBBY_REPLICAS, LOBBY_SLOW],
        log_patterns=[PLEG, QUEUE],
        alert_groups=[NOT_READY, LOBBY_ERRORS],
    )
    draft = diagnose_digest(ask("players are stuck finding a match, what's going on?", digest))
    assert draft.root_cause is not None and draft.root_cause.service == NODE
    assert "Skipping pod synchronization" in draft.root_cause.statement  # its agent's lines are its own


def test_one_agent_alone_makes_no_machine() -> None:
    # Only the node agent is scraped there: its job's series stay its own (no second agent says machine).
    digest = Digest(anomalies=[HOST_LOAD], log_patterns=[QUEUE], alert_groups=[LOBBY_ERRORS])
    draft = diagnose_digest(ask("players are stuck finding a match, what's going on?", digest))
    assert draft.root_cause is not None and draft.root_cause.service != NODE


def test_a_consumer_groups_lag_is_its_consumers_trouble_not_the_brokers() -> None:
    lag = move(
        "kafka_consumergroup_lag",
        "broker-exporter",
        "2026-03-01T10:15:00Z",
        {"job": "broker-exporter", "instance": "broker-exporter:9308", "consumergroup": "readings-ingest-v3"},
    )
    stuck = lines(
        "readings-ingest",
        "Error deserializing key/value for partition readings-4 at offset 182",
        "2026-03-01T10:52:53Z",
        count=34,
    )
    draft = diagnose_digest(
        ask("readings stopped updating, is the broker broken?", Digest(anomalies=[lag], log_patterns=[stuck]))
    )
    assert draft.root_cause is not None and draft.root_cause.service == "readings-ingest"
