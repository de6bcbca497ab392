"""A scrape job named for its software (`job=cassandra`) over one deployment (`cluster=playstate-cassandra`):
discovery lists the job's name, the alerts name the deployment; they are one system, and a caller naming
the software ("Cassandra timeout during read query") names it."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest

_TIMEOUT = (
    "Request processing failed: com.datastax.oss.driver.api.core.servererrors.ReadTimeoutException:"
    " Cassandra timeout during read query at consistency LOCAL_QUORUM"
)

_DRIVER = "DataStax Java driver for Apache Cassandra(R) (com.datastax.oss:java-driver-core) version 4.17.0"


def _digest(job: str) -> Digest:
    backlog = alert(
        "CompactionBacklog",
        "playstate-cassandra",
        "2026-03-01T09:40:00Z",
        {"job": job, "cluster": "playstate-cassandra", "instance": "pst-cass-01:7070"},
        "Compaction backlog growing",
    )
    return Digest(
        alert_groups=[replace(backlog, severity="warning")],
        log_patterns=[
            lines("episode-api", _TIMEOUT, "2026-03-01T09:55:00Z"),
            # The caller's own start-up names the software: a change to the caller, not to the database.
            replace(
                lines("episode-api", _DRIVER, "2026-03-01T09:50:00Z", count=3, level="info"), steady=False
            ),
        ],
    )


def test_a_caller_naming_the_software_of_a_job_names_the_deployment_it_scrapes() -> None:
    request = replace(
        ask("why is episode-api slow?", _digest("cassandra")),
        services=("cassandra", "episode-api", "playstate-cassandra"),
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.service == "playstate-cassandra"
    assert "cassandra" not in {r.service for r in draft.ruled_out}


def test_a_job_of_another_name_is_not_joined() -> None:
    """`job=scylla-exporter` is no part of the deployment's name: the name `cassandra` stays its own."""
    request = replace(
        ask("why is episode-api slow?", _digest("scylla-exporter")),
        services=("cassandra", "episode-api", "playstate-cassandra"),
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is None or draft.root_cause.service != "playstate-cassandra"


def test_a_job_over_several_hosts_is_no_system_its_callers_name() -> None:
    """`job=kvcache` scrapes three hosts; the callers' "kvcache write failed" cannot say which one, so
    the job's bare name (listed by discovery) is blamed for nothing: the host that shut down is the root."""
    hosts = [f"ring-kv-{x}" for x in "abc"]
    uptime = [
        replace(
            move(
                "kvcache_uptime_in_seconds",
                host,
                "2026-03-01T09:50:00Z",
                {"job": "kvcache", "instance": f"{host}:9121"},
            ),
            event="restart" if host == "ring-kv-a" else None,
            score=50.0 if host == "ring-kv-a" else 0.5,
        )
        for host in hosts
    ]
    digest = Digest(
        anomalies=uptime,
        log_patterns=[
            lines("ring-kv-a", "# Received SIGTERM scheduling shutdown...", "2026-03-01T09:49:30Z", count=3),
            lines(
                "checkin-api",
                "kvcache write failed: Error 111 connecting to 10.30.1.11:6379",
                "2026-03-01T09:50:00Z",
            ),
            lines(
                "gate-board", 'msg="kvcache command failed" err="connection refused"', "2026-03-01T09:50:00Z"
            ),
        ],
    )
    known = ("kvcache", *hosts, "checkin-api", "gate-board")
    draft = diagnose_digest(replace(ask("what happened at 09:50?", digest), services=known))
    assert draft.root_cause is not None and draft.root_cause.service == "ring-kv-a"
