"""Root-cause statements made of the evidence's own words, and category tags read from those words."""

from __future__ import annotations

import pytest

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.categories import categorize
from graph.analysts.rules.diagnose import diagnose_digest
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
        ("ORA-1653: unable to extend table LAB.SAMPLES by 1024 in tablespace SAMPLE_DATA", "disk_full"),
        ("DatabaseConnections rose; too many clients already", "connection_pool_exhaustion"),
        ("Multi-AZ instance failover started; promoted replica", "failover"),
        ("checkpoints are occurring too frequently", "checkpoint"),
        ("WriteLatency rose", "disk-io"),
        ("storage_disk_slow rose; disk slowness detected: syncdata has been ongoing for 14.0s", "disk-io"),
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


def test_the_category_is_what_most_signals_speak_of_not_the_most_repeated_word() -> None:
    """A pool logger's one line spells "pool" four times; three series and an alert speak of the
    heap and garbage collection: memory."""
    signals = [
        "com.zaxxer.hikari.pool.HikariPool : HikariPool-1 - Thread starvation (pool housekeeper)",
        "JvmHeapNearlyFull heap above 90% after GC",
        "jvm_gc_overhead",
        "jvm_memory_used_bytes",
    ]
    assert categorize(" ".join(signals), changed=False) == "connection_pool_exhaustion"  # counted words
    assert categorize("\n".join(signals), changed=False) == "memory_leak"


def test_a_crash_loop_right_after_a_rollout_is_the_deploy() -> None:
    crashing = "Back-off restarting failed container"
    assert categorize(crashing, changed=False) == "crashloop"
    assert (
        categorize(crashing, changed=True, change_text='Successfully pulled image "web:4.12.0"')
        == "bad_deploy"
    )


def test_error_lines_keep_their_place_beside_a_change_an_alert_and_two_metrics() -> None:
    """Four signals at most, and the error lines (the words that say what broke) are never the one
    cut: a second metric goes first. The change is quoted at the time of its quoted (latest) line."""
    from graph.analysts.rules.statement import signal_phrases
    from graph.analysts.rules.suspect import Suspect
    from tools.facts import AlertGroup, LogPattern

    def line(template: str, level: str, first: str, last: str, example: str) -> LogPattern:
        return LogPattern("logs-1", "shop", level, template, 9, first, last, example)

    change = line(
        "deployed version <*>", "INFO", "2026-01-01T09:00:00Z", "2026-01-01T11:40:00Z", "deployed version v7"
    )
    errors = line(
        "handshake failed: <*>",
        "ERROR",
        "2026-01-01T11:45:00Z",
        "2026-01-01T11:59:00Z",
        "handshake failed: certificate expired",
    )
    alert = AlertGroup(
        "alerts-1", "HighErrorRate", "shop", "critical", "firing", 1, [], "2026-01-01T11:46:00Z", "5xx"
    )
    root = Suspect(
        "shop",
        anomalies=[_anomaly("rate(requests_total)", 1, 9), _anomaly("rate(latency_sum)", 1, 5)],
        errors=[errors],
        changes=[change],
        alerts=[alert],
    )
    phrases = signal_phrases(root, [change])
    assert len(phrases) == 4
    assert any("certificate expired" in phrase for phrase in phrases)
    assert not any("latency_sum" in phrase for phrase in phrases)
    assert phrases[0] == 'change "deployed version v7" at 2026-01-01T11:40:00Z'


def test_a_long_error_lines_last_clause_is_quoted_too() -> None:
    """The end of a long error line is often what went wrong: it is kept as a second verbatim slice,
    each slice a substring of the line (EvidenceGuard checks each quoted part)."""
    from graph.analysts.rules.findings import quote

    line = (
        "[ERROR] Replica SQL for channel '': Worker 1 failed executing transaction 'ANONYMOUS' at source log "
        "binlog.000412, end_log_pos 88412731; Could not execute Write_rows event on table registry.nest_box; "
        "Duplicate entry '88412' for key 'nest_box.PRIMARY'"
    )
    quoted = quote(line)
    head, tail = quoted.split('" ... "')
    assert line.startswith(head) and line.endswith(tail) and tail.startswith("Duplicate entry")
    assert len(quoted) <= 120
    assert quote("short line; no cut") == "short line; no cut"


@pytest.mark.parametrize(
    "line",
    [
        "Config refresh: spring.datasource.hikari.maximum-pool-size changed from 40 to 8 (source: cfg)",
        "configuration updated by operator",
        "worker_concurrency changed from 16 to 4",
    ],
)
def test_config_refreshes_and_settings_changed_from_a_to_b_are_changes(line: str) -> None:
    from graph.analysts.rules.vocabulary import CHANGE

    assert CHANGE.search(line)
