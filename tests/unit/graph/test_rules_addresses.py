"""A dependency its callers know only by address: the host of the instance its series are scraped at."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.addresses import address_owners, is_address, names_address
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.suspect import Suspect
from graph.analysts.rules.suspects import rank_suspects
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

CLIENT_ERRORS = LogPattern(
    evidence_id="logs-1",
    service="tally-worker",
    level="WARN",
    template="Connection to node 2 (<*>) could not be established. Broker may not be available.",
    count=140,
    first_seen="2026-01-01T08:06:00Z",
    last_seen="2026-01-01T08:29:00Z",
    example="Connection to node 2 (10.20.4.12:9092) could not be established. Broker may not be available.",
)
BROKER_DIRS = MetricAnomaly(
    evidence_id="metrics-3",
    metric="kafka_log_offline_log_directory_count",
    labels={"job": "kafka-broker", "instance": "10.20.4.12:9308"},
    service="kafka-broker",
    baseline=0.0,
    recent=1.0,
    peak=1.0,
    change_at="2026-01-01T08:03:00Z",
    direction="up",
    ratio=100.0,
    score=9.0,
)
# A louder alert of the node exporter's job: "node" is also a plain word of the client's line.
HERRING = AlertGroup(
    evidence_id="alerts-1",
    alertname="HostHighCpuLoad",
    service="node",
    severity="critical",
    status="firing",
    count=1,
    instances=["ci-runner-3:9100"],
    first_started="2026-01-01T08:04:00Z",
    summary="CPU load above 95% on ci-runner-3",
    labels={"alertname": "HostHighCpuLoad", "job": "node", "instance": "ci-runner-3:9100"},
)


def _ask(digest: Digest) -> DiagnoseRequest:
    return DiagnoseRequest(
        route=Route(route="complex", resolved_query="why is tally-worker lagging?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T08:30:00Z",
    )


def test_a_caller_naming_only_an_address_blames_the_system_scraped_there() -> None:
    draft = diagnose_digest(
        _ask(Digest(anomalies=[BROKER_DIRS], log_patterns=[CLIENT_ERRORS], alert_groups=[HERRING]))
    )
    assert draft.root_cause is not None and draft.root_cause.service == "kafka-broker"
    blame = [f for f in draft.findings if f.statement.startswith("tally-worker errors name 10.20.4.12")]
    # The address ties the two only through the broker's own series: the finding cites both.
    assert blame and blame[0].evidence_ids == ["logs-1", "metrics-3"]
    assert "the address kafka-broker is scraped at" in blame[0].statement
    ranking = rank_suspects(
        Digest(anomalies=[BROKER_DIRS], log_patterns=[CLIENT_ERRORS], alert_groups=[HERRING])
    )
    node = next(s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet] if s.service == "node")
    assert not node.blamed_by  # "node 2" is a word of the line; the address says where the call went


def test_an_address_two_systems_are_scraped_at_names_neither() -> None:
    node = replace(
        BROKER_DIRS,
        evidence_id="metrics-4",
        metric="node_filesystem_avail_bytes",
        service="node",
        labels={"job": "node", "instance": "10.20.4.12:9100"},
        direction="down",
        ratio=0.01,
    )
    ranking = rank_suspects(Digest(anomalies=[BROKER_DIRS, node], log_patterns=[CLIENT_ERRORS]))
    assert not any(s.addressed_by for s in ranking.ranked)


def test_a_host_named_like_a_word_is_a_name_not_an_address() -> None:
    """`instance="cache:6379"` (a compose file's service name): a line naming "cache" names the
    system by name, and nothing is said about an address."""
    cache = replace(BROKER_DIRS, service="cache", labels={"job": "cache", "instance": "cache:6379"})
    assert address_owners({"cache": Suspect("cache", anomalies=[cache])}) == {}


def test_an_address_is_matched_whole() -> None:
    assert names_address("connect to 10.20.4.12:9092 failed", "10.20.4.12")
    assert names_address("peer 10.20.4.12 down.", "10.20.4.12")
    assert not names_address("connect to 10.20.4.120:9092 failed", "10.20.4.12")
    assert not names_address("connect to 10.20.4.12.5 failed", "10.20.4.12")


# A replica set's member scraped by its hyphenated machine name; its client's driver names that
# machine when the primary steps down, and the set's own line says it elected another.
MEMBER_STATE = replace(
    BROKER_DIRS,
    evidence_id="metrics-5",
    metric="replset_member_state",
    service="orders-rs",
    labels={"job": "orders-rs", "instance": "ord-db-a:9216"},
    change_at="2026-01-01T08:05:00Z",
)
DRIVER_SAW = replace(
    CLIENT_ERRORS,
    evidence_id="logs-2",
    service="orders-api",
    template="topology: server <*> changed from RSPrimary to Unknown",
    example="topology: server ord-db-a:27017 changed from RSPrimary to Unknown",
    count=1,
    first_seen="2026-01-01T08:04:10Z",
    last_seen="2026-01-01T08:04:10Z",
)
WRITES_REFUSED = replace(
    CLIENT_ERRORS,
    evidence_id="logs-3",
    service="orders-api",
    level="ERROR",
    template='insert failed: "not primary" codeName=NotWritablePrimary',
    example='insert failed: "not primary" codeName=NotWritablePrimary',
    count=35,
    first_seen="2026-01-01T08:04:12Z",
    last_seen="2026-01-01T08:05:00Z",
)


def test_a_hyphenated_machine_name_is_the_address_of_the_system_scraped_there() -> None:
    member = Suspect("orders-rs", anomalies=[MEMBER_STATE])
    assert address_owners({"orders-rs": member}) == {"ord-db-a": "orders-rs"}


def test_a_change_line_naming_another_systems_machine_is_that_systems_change() -> None:
    ranking = rank_suspects(Digest(anomalies=[MEMBER_STATE], log_patterns=[DRIVER_SAW, WRITES_REFUSED]))
    by_name = {s.service: s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert [p.evidence_id for p in by_name["orders-rs"].changes] == ["logs-2"]
    assert not by_name["orders-api"].changes
    assert "orders-api" in by_name["orders-rs"].blamed_by


def test_a_failover_names_the_set_not_the_member_that_took_the_writes() -> None:
    # The new primary's series move (it takes the writes): that member is no fault of its own.
    new_primary = replace(
        MEMBER_STATE,
        evidence_id="metrics-6",
        metric="rate(opcounters_insert)",
        labels={"job": "orders-rs", "instance": "ord-db-b:9216"},
        ratio=40.0,
        score=12.0,
    )
    elected = replace(
        DRIVER_SAW,
        evidence_id="logs-4",
        service="orders-rs",
        level="INFO",
        template="Starting an election, since we've seen no PRIMARY in election timeout period",
        example="Starting an election, since we've seen no PRIMARY in election timeout period",
        first_seen="2026-01-01T08:04:08Z",
        last_seen="2026-01-01T08:04:08Z",
    )
    # Both members changed state alike (one stepped down, one up): a move of the whole set.
    promoted = replace(
        MEMBER_STATE, evidence_id="metrics-7", labels={"job": "orders-rs", "instance": "ord-db-b:9216"}
    )
    digest = Digest(
        anomalies=[MEMBER_STATE, promoted, new_primary], log_patterns=[DRIVER_SAW, WRITES_REFUSED, elected]
    )
    asked = Route(route="complex", resolved_query="orders failing?")
    draft = diagnose_digest(replace(_ask(digest), route=asked))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("orders-rs", "failover")


def test_an_address_is_spelled_with_digits_whatever_its_brackets_and_port() -> None:
    for address in ("10.40.0.2", "10.4.1.9:9100", "[::1]", "[fd00::7]:9100", "fd00::7"):
        assert is_address(address), address
    for name in ("cafe", "db-1", "ns-int-01", "beef:9100", "10.4.1.9/24"):
        assert not is_address(name), name
