"""The monitoring stack is a witness, never a suspect: Alertmanager's counters race whenever any alert
fires, and every exporter's own go_/process_ series moves with load; neither is a root cause unless the
question is about monitoring."""

from __future__ import annotations

from graph.analysts.rules.suspects import rank_suspects
from tools.facts import Digest, MetricAnomaly
from tools.prometheus.discovery import MonitoringStack

ONSET = "2026-11-30T09:10:00Z"


def _anomaly(metric: str, labels: dict[str, str], service: str, ratio: float) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id=f"metrics-{len(metric)}",
        metric=metric,
        labels=labels,
        service=service,
        baseline=1.0,
        recent=ratio,
        peak=ratio,
        change_at=ONSET,
        direction="up",
        ratio=ratio,
        score=10.0 * ratio,
    )


DIGEST = Digest(
    anomalies=[
        _anomaly("rate(alertmanager_alerts_received_total)", {"job": "alertmanager"}, "alertmanager", 40.0),
        _anomaly("go_goroutines", {"job": "node", "instance": "db1:9100"}, "node", 30.0),
        _anomaly(
            "rate(node_disk_io_time_seconds_total)", {"job": "node", "instance": "db1:9100"}, "node", 8.0
        ),
    ]
)


def test_the_stack_and_exporter_internals_are_never_suspects() -> None:
    ranking = rank_suspects(DIGEST, stack=MonitoringStack(), known=["alertmanager", "node"])

    named = [s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]]
    assert named == ["node"]
    [node] = [s for s in [*ranking.ranked, *ranking.quiet] if s.service == "node"]
    assert [a.metric for a in node.anomalies] == ["rate(node_disk_io_time_seconds_total)"]


def test_without_a_stack_filter_the_stack_can_be_named() -> None:
    # What diagnose passes when the question is about monitoring itself.
    ranking = rank_suspects(DIGEST, stack=None)

    named = {s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert "alertmanager" in named


def test_an_exporters_telemetry_about_itself_is_the_stacks_whatever_its_namespace() -> None:
    from tools.prometheus.discovery import DEFAULT_STACK

    for name in (
        "mysql_exporter_collector_duration_seconds",
        "pg_exporter_last_scrape_duration_seconds",
        "node_scrape_collector_duration_seconds",
        "redis_exporter_scrapes_total",
    ):
        assert DEFAULT_STACK.owns(name), name
    for name in (
        "mysql_global_status_slow_queries",
        "node_disk_io_time_seconds_total",
        "http_requests_total",
    ):
        assert not DEFAULT_STACK.owns(name), name
