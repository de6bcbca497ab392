"""The digest on whole worlds: the demo shop's payment incident, and a differently named world.

Evidence is built straight from the world files in the toolbox's data shapes, so these tests show
the digest alone names each world's incident, whatever its services, metrics and vocabulary.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.data.worlds import generate as streaming_generator
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.demo_world import DEMO_WORLD_DIR
from tools.demo_world import generate as demo_generator
from tools.digest import build_digest
from tools.facts import Digest
from tools.world import World, load_world

STREAMING_DIR = Path(streaming_generator.WORLD_DIR)


def _evidence(evidence_id: str, source: EvidenceSource, data: Mapping[str, object]) -> Evidence:
    return Evidence(evidence_id, source, "tool", "t", "s", data, {}, EvidenceStatus.OK)


def _world_digest(world: World, log_services: list[str]) -> Digest:
    series = [
        {"metric": s.metric, "labels": s.labels, "samples": [list(p) for p in s.samples]}
        for s in world.series
    ]
    alerts = [a.model_dump(by_alias=True, mode="json") for a in world.alerts]
    evidence = [
        _evidence("alerts-1", EvidenceSource.ALERTS, {"alerts": alerts, "total": len(alerts)}),
        _evidence("metrics-1", EvidenceSource.METRICS, {"series": series}),
    ]
    for i, service in enumerate(log_services, start=1):
        lines = [
            {"ts": line.ts.isoformat(), "labels": line.labels(), "message": line.message}
            for line in world.logs
            if line.service == service
        ]
        evidence.append(_evidence(f"logs-{i}", EvidenceSource.LOGS, {"lines": lines}))
    return build_digest(evidence, now=world.now)


@pytest.fixture(scope="module")
def demo() -> Digest:
    return _world_digest(load_world(DEMO_WORLD_DIR), ["payment", "checkout", "report-batch"])


@pytest.fixture(scope="module")
def streaming() -> Digest:
    return _world_digest(load_world(STREAMING_DIR), ["transcoder", "ingest-api", "object-store"])


def test_demo_anomalies_name_the_payment_pool_latency_and_errors(demo: Digest) -> None:
    payment = {a.metric for a in demo.anomalies if a.service == "payment"}
    assert {
        "db_pool_connections_active",
        "http_request_duration_seconds_p99",
        "http_errors_per_second",
        "db_pool_pending_threads",
    } <= payment
    pool = next(a for a in demo.anomalies if a.metric == "db_pool_connections_active")
    assert (pool.evidence_id, pool.direction, pool.recent, pool.peak) == ("metrics-1", "up", 20, 20)
    assert pool.change_at == "2026-11-30T09:25:00Z"


def test_demo_payment_changes_first_and_its_callers_follow(demo: Digest) -> None:
    first_change: dict[str, str] = {}
    for anomaly in demo.anomalies:
        if anomaly.service and anomaly.change_at:
            first_change[anomaly.service] = min(first_change.get(anomaly.service, "~"), anomaly.change_at)
    assert first_change["payment"] < first_change["checkout"] < first_change["gateway"]
    assert "report-batch" not in first_change  # the red herring's CPU did not change recently


def test_demo_error_patterns_lead_with_the_pool_timeout(demo: Digest) -> None:
    top = demo.log_patterns[0]
    assert (top.evidence_id, top.service, top.level) == ("logs-1", "payment", "error")
    assert "Connection is not available" in top.template and top.count > 100
    assert top.first_seen == "2026-11-30T09:25:00Z"
    checkout = next(p for p in demo.log_patterns if p.service == "checkout" and p.level == "error")
    assert checkout.evidence_id == "logs-2" and "timed out" in checkout.template
    deploy_examples = " ".join(p.example for p in demo.log_patterns)
    assert "v2.4.1" in deploy_examples or any("<VERSION>" in p.template for p in demo.log_patterns)


def test_demo_alert_groups_keep_instances_and_date_the_red_herring(demo: Digest) -> None:
    groups = {(g.alertname, g.service): g for g in demo.alert_groups}
    pool = groups[("DBConnectionPoolSaturated", "payment")]
    assert pool.count == 3 and len(pool.instances) == 3 and pool.severity == "critical"
    cpu = groups[("HighCPUUsage", "report-batch")]
    assert cpu.first_started is not None and cpu.first_started < "2026-11-30T03:00:00Z"


def test_demo_sql_shows_idle_in_transaction_sessions_from_payment(tmp_path: Path) -> None:
    db = sqlite3.connect(":memory:")
    db.executescript((DEMO_WORLD_DIR / "sql" / "orders.sql").read_text())
    statement = "SELECT application_name, state, xact_start FROM pg_stat_activity_snapshot"
    cursor = db.execute(statement)
    data = {
        "datasource": "orders",
        "statement": statement,
        "columns": [c[0] for c in cursor.description],
        "rows": [list(r) for r in cursor],
    }
    [summary] = build_digest(
        [_evidence("sql-1", EvidenceSource.SQL, data)], now=load_world(DEMO_WORLD_DIR).now
    ).sql
    assert "application_name=payment (60 of 74 rows)" in summary.highlights
    assert "state=idle in transaction (58 of 74 rows)" in summary.highlights


def test_streaming_world_finds_the_transcoder_leak_with_other_names(streaming: Digest) -> None:
    by_metric = {a.metric: a for a in streaming.anomalies}
    heap = by_metric["jvm_heap_used_bytes"]
    assert (heap.service, heap.direction, heap.evidence_id) == ("transcoder", "up", "metrics-1")
    assert "2027-03-14T15:15:00Z" <= (heap.change_at or "") <= "2027-03-14T15:25:00Z"
    assert by_metric["queue_depth_messages"].service == "ingest-api"
    assert by_metric["queue_depth_messages"].direction == "up"
    assert by_metric["transcode_jobs_completed_per_minute"].direction == "down"
    assert "object-store" not in {a.service for a in streaming.anomalies}
    assert "uploads_accepted_per_second" not in by_metric


def test_streaming_world_error_patterns_and_alerts(streaming: Digest) -> None:
    top = streaming.log_patterns[0]
    assert (top.service, top.level, top.evidence_id) == ("transcoder", "error", "logs-1")
    assert "OutOfMemoryError" in top.template
    oom = next(g for g in streaming.alert_groups if g.alertname == "PodOOMKilled")
    assert oom.service == "transcoder" and oom.instances == ["transcoder-0", "transcoder-1"]


@pytest.mark.parametrize(
    ("write", "committed", "files"),
    [
        (
            demo_generator.write_world,
            DEMO_WORLD_DIR,
            ["metrics.json", "alerts.json", "logs.jsonl", "sql/orders.sql"],
        ),
        (
            streaming_generator.write_world,
            STREAMING_DIR,
            ["metrics.json", "alerts.json", "logs.jsonl", "world.yaml", "scenarios.yaml"],
        ),
    ],
)
def test_committed_world_data_is_what_the_seeded_generator_writes(
    write: object, committed: Path, files: list[str], tmp_path: Path
) -> None:
    assert callable(write)
    (tmp_path / "sql").mkdir()
    write(tmp_path)
    for name in files:
        assert (tmp_path / name).read_bytes() == (committed / name).read_bytes(), name
