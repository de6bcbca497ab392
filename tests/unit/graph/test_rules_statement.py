"""Root-cause statements made of the evidence's own words, and category tags read from those words."""

from __future__ import annotations

import pytest

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.vocabulary import categorize
from tools.facts import Digest, MetricAnomaly


def _anomaly(metric: str, baseline: float, recent: float) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-1",
        metric=metric,
        labels={"DBInstanceIdentifier": "ledger-prod-7"},
        service="ledger-prod-7",
        baseline=baseline,
        recent=recent,
        peak=recent,
        change_at="2026-01-01T11:52:00Z",
        direction="up" if recent > baseline else "down",
        ratio=recent / baseline,
        score=9.0,
    )


def test_the_statement_names_the_metric_and_its_change_with_values_and_time() -> None:
    digest = Digest(anomalies=[_anomaly("ReplicaLag", 0.4, 910)])
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why are reads stale?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T12:10:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    assert draft.root_cause.service == "ledger-prod-7"
    assert "ReplicaLag rose from 0.4 to 910 at 2026-01-01T11:52:00Z" in draft.root_cause.statement
    assert draft.root_cause.category == "replication"


@pytest.mark.parametrize(
    ("words", "tag"),
    [
        ("FreeStorageSpace fell", "disk_full"),
        ("DatabaseConnections rose; too many clients already", "connection_pool_exhaustion"),
        ("Multi-AZ instance failover started; promoted replica", "failover"),
        ("checkpoints are occurring too frequently", "checkpoint"),
        ("WriteLatency rose", "disk-io"),
        ("x509: certificate has expired or is not yet valid", "tls"),
        ("dial tcp: lookup orders-db: no such host", "dns"),
        ("Back-off restarting failed container", "crashloop"),
        ("consumer backlog keeps growing", "saturation"),
        ("p99 response time rose", "latency"),
        ("NodeDiskIOSaturation: disk IO queue is high; node_disk_io_time_seconds rose", "disk-io"),
        ("worker pool exhausted: 16/16 busy; job waited 4112s for a worker", "saturation"),
        ("rate(cache_evicted_keys_total) rose", "memory_leak"),
        ("DeploymentReplicasMismatch: replicas available fell", "unclassified"),
        ("frobnicator wobble", "unclassified"),
    ],
)
def test_the_category_is_a_tag_read_from_the_signals_words(words: str, tag: str) -> None:
    assert categorize(words, changed=False) == tag


def test_a_crash_loop_right_after_a_rollout_is_the_deploy() -> None:
    crashing = "Back-off restarting failed container"
    assert categorize(crashing, changed=False) == "crashloop"
    assert (
        categorize(crashing, changed=True, change_text='Successfully pulled image "web:4.12.0"')
        == "bad_deploy"
    )
