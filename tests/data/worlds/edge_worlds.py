"""Scenario worlds at the edges: `analytics` (healthy: the right answer is "no incident found") and
`iot` (no metrics.json: the answer must say metrics are unavailable and lower its confidence).
"""

from __future__ import annotations

from datetime import UTC, datetime

from tests.data.worlds.world_writer import WorldWriter

_ANALYTICS_SCENARIOS = """\
- id: analytics-healthy-status
  question: Is anything wrong with the analytics platform right now?
  expect:
    healthy: true
    keywords_none: ["root cause:"]
- id: analytics-healthy-dashboards
  question: A user says dashboards feel slow today. Is there an incident?
  expect:
    healthy: true
    keywords_none: ["root cause:"]
"""


def analytics() -> WorldWriter:
    """Nothing is wrong: ordinary daily traffic, one alert resolved last night, routine log lines."""
    w = WorldWriter("analytics", datetime(2027, 4, 12, 15, 10, tzinfo=UTC), seed=412)
    for deployment, rps, p95 in (
        ("query-api", 85.0, 0.21),
        ("dashboard-web", 40.0, 0.35),
        ("ingest-worker", 310.0, 0.04),
    ):
        labels = {"deployment": deployment, "instance": f"{deployment}-0", "cluster": "bi-prod"}
        w.add_series("requests_per_second", labels, w.baseline(rps, amplitude=0.4))
        w.add_series("request_latency_p95_seconds", labels, w.baseline(p95, amplitude=0.1, noise=0.06))
        w.add_series("request_errors_per_second", labels, w.baseline(0.01, noise=0.4))
        w.add_series(
            "container_memory_working_set_bytes",
            labels,
            w.baseline(6.1e8, amplitude=0.05, noise=0.02),
            digits=0,
        )
    w.resolved_alert(
        "IngestLagHigh",
        {"deployment": "ingest-worker", "severity": "warning"},
        started_ago=900,
        ended_ago=880,
        summary="ingest-worker lag above 5 minutes",
    )
    w.every(
        "query-api",
        "info",
        lambda _: (
            f"query q_{int(w.rng.integers(10**6, 10**7))} done rows={int(w.rng.integers(10, 5000))} "
            f"in {int(w.rng.integers(40, 400))}ms"
        ),
        since_ago=240,
        gap_s=(40, 120),
    )
    w.every(
        "dashboard-web",
        "info",
        lambda _: f"GET /d/{int(w.rng.integers(100, 999))} 200 {int(w.rng.integers(90, 600))}ms",
        since_ago=240,
        gap_s=(50, 130),
    )
    w.every(
        "ingest-worker",
        "info",
        lambda _: (
            f"committed batch offset={int(w.rng.integers(10**7, 10**8))} "
            f"events={int(w.rng.integers(500, 3000))}"
        ),
        since_ago=240,
        gap_s=(60, 140),
    )
    w.every(
        "query-api",
        "warn",
        lambda _: (
            f"slow query q_{int(w.rng.integers(10**6, 10**7))} took 1.{int(w.rng.integers(1, 9))}s "
            f"(threshold 1s)"
        ),
        since_ago=240,
        gap_s=(1800, 3600),
    )
    return w


_IOT_SCENARIOS = """\
# No metrics.json on purpose: metrics evidence is unavailable.
- id: iot-devices-disconnecting
  question: Why are devices disconnecting from the broker?
  expect:
    root_cause_service: mqtt-broker
    category: connection_pool_exhaustion
    keywords_all: [mqtt-broker]
    evidence_sources: [alerts, logs]
    unavailable_sources: [metrics]
    max_confidence: 0.6
"""


def iot() -> WorldWriter:
    """mqtt-broker hits its connection limit at 21:35 after a firmware reconnect storm; no metrics."""
    w = WorldWriter("iot", datetime(2027, 9, 30, 22, 0, tzinfo=UTC), seed=930)
    full = 25
    w.alert(
        "BrokerConnectionsRejected",
        {"service": "mqtt-broker", "severity": "critical", "node": "mqtt-2"},
        full - 2,
        summary="mqtt-broker is refusing new client connections",
    )
    w.alert(
        "DeviceHeartbeatsMissing",
        {"service": "device-registry", "severity": "warning"},
        full - 5,
        summary="over 8% of devices missed 3 heartbeats",
    )
    w.every(
        "mqtt-broker",
        "error",
        lambda _: (
            f"connection limit reached (max_connections=50000): refusing CONNECT from "
            f"10.40.{int(w.rng.integers(0, 255))}.{int(w.rng.integers(1, 255))} "
            f"client_id=dev-{int(w.rng.integers(10**5, 10**6))}"
        ),
        since_ago=full,
        gap_s=(10, 40),
    )
    w.every(
        "mqtt-broker",
        "info",
        lambda _: f"client dev-{int(w.rng.integers(10**5, 10**6))} connected (clean_session=false)",
        since_ago=240,
        until_ago=full,
        gap_s=(40, 120),
    )
    w.every(
        "device-registry",
        "warn",
        lambda _: f"device dev-{int(w.rng.integers(10**5, 10**6))} missed 3 heartbeats, marking offline",
        since_ago=full - 3,
        gap_s=(30, 90),
    )
    w.every(
        "firmware-updater",
        "info",
        lambda _: f"rollout fw 4.8.1 wave 3: {int(w.rng.integers(2000, 9000))} devices rebooted",
        since_ago=60,
        gap_s=(600, 900),
    )
    return w


def write_edge_worlds() -> None:
    """Rewrite the analytics and iot worlds."""
    analytics().write(
        description="A BI platform (query-api, dashboard-web, ingest-worker) on an ordinary "
        "afternoon: nothing is wrong.",
        scenarios=_ANALYTICS_SCENARIOS,
    )
    iot().write(
        description="A device fleet (mqtt-broker, device-registry, firmware-updater) without "
        "metrics: the broker "
        "hits its connection limit at 21:35 UTC.",
        scenarios=_IOT_SCENARIOS,
        metrics=False,
    )
