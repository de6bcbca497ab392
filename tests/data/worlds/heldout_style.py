"""Worlds written the way a different author would: other label keys, counters, quantile gauges,
logfmt and JSON-in-message logs, Java stack traces, a missing alert source, a healthy peak.

`clinic`: a 4-service cascade whose root is two hops upstream of the page users see, beside a red
herring that starts at the same minute. `remit`: no alerts.json, the cause only in metrics and logs.
`broadcast`: healthy, a big normal evening peak and one flapping alert that resolved.
Run `python -m tests.data.worlds.heldout_style`; the output is identical for the same code.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

from tests.data.worlds.world_writer import WorldWriter


def cumulative(w: WorldWriter, per_second: Sequence[float], start: float = 0.0) -> list[float]:
    """A Prometheus `*_total` counter: the running sum of a per-second rate over the minute grid."""
    total = start
    out: list[float] = []
    for rate in per_second:
        total += max(0.0, rate) * 60
        out.append(float(round(total)))
    return out


def logfmt(**fields: object) -> str:
    """A logfmt line; values with spaces are quoted."""
    parts = []
    for key, value in fields.items():
        text = str(value)
        parts.append(f'{key}="{text}"' if " " in text or not text else f"{key}={text}")
    return " ".join(parts)


_CLINIC_SCENARIOS = """\
- id: clinic-booking-hangs
  question: Patients can't book appointments on the website, the page hangs and then errors. What is going on?
  expect:
    root_cause_service: slot-engine
    category: connection_pool_exhaustion
    keywords_all: [slot-engine, pool]
    keywords_none: ["root cause: search-indexer", "root cause: slotdb", "root cause: patient-web"]
    evidence_sources: [metrics, logs]
"""


def clinic() -> WorldWriter:
    """slot-engine's DB pool saturates at 09:05; booking-gateway and patient-web time out behind it."""
    w = WorldWriter("clinic", datetime(2027, 6, 8, 9, 40, tzinfo=UTC), seed=608)
    onset = 35.0
    for job, rps, p99 in (
        ("patient-web", 55.0, 0.42),
        ("booking-gateway", 38.0, 0.21),
        ("slot-engine", 41.0, 0.09),
    ):
        labels = {"job": job, "instance": f"10.8.{len(job)}.{int(rps)}:9100"}
        latency = w.baseline(p99, amplitude=0.1, noise=0.07)
        latency = w.shift(latency, minutes_ago=onset - 2 * (job != "slot-engine"), target=p99 * 40)
        w.add_series("http_server_requests_seconds", {**labels, "quantile": "0.99"}, latency)
        ok = w.shift(w.baseline(rps, amplitude=0.3), minutes_ago=onset, target=rps * 0.4)
        bad = w.shift(w.baseline(rps * 0.001, noise=0.5), minutes_ago=onset - 1, target=rps * 0.5)
        w.add_series("http_requests_total", {**labels, "code": "200"}, cumulative(w, ok, 4e6))
        w.add_series("http_requests_total", {**labels, "code": "500"}, cumulative(w, bad, 2e3))
    engine = {"job": "slot-engine", "instance": "10.8.11.41:9100", "pool": "slots"}
    used = w.shift(w.baseline(9.0, amplitude=0.2, noise=0.1), minutes_ago=onset + 2, target=32, ramp=4)
    w.add_series("db_client_connections_usage", {**engine, "state": "used"}, [min(v, 32) for v in used])
    w.add_series("db_client_connections_max", engine, [32.0 for _ in w.grid])
    waiting = w.shift(w.baseline(0.2, noise=0.8), minutes_ago=onset, target=118, ramp=5)
    w.add_series("db_client_connections_pending_requests", engine, waiting)
    db = {"job": "slotdb", "instance": "10.8.20.5:9187"}
    w.add_series("pg_stat_activity_count", db, w.baseline(14.0, amplitude=0.2, noise=0.08))
    w.add_series("pg_stat_statements_mean_exec_time_seconds", db, w.baseline(0.004, noise=0.1), 5)
    indexer = {"job": "search-indexer", "instance": "10.8.30.2:9100"}
    cpu = w.shift(w.baseline(22.0, noise=0.08), minutes_ago=onset, target=96.0, ceiling=100.0)
    w.add_series("cpu_usage_percent", indexer, cpu)
    w.add_series("process_cpu_seconds_total", indexer, cumulative(w, [c / 100 * 4 for c in cpu], 9e5))
    w.alert(
        "BookingSLOBurnRate",
        {"job": "patient-web", "severity": "page", "team": "frontdesk"},
        onset - 6,
        message="patient-web 99th percentile above 2s for 5m, error budget burning 14x",
        runbook_url="https://wiki.example.internal/rb/booking-slo",
    )
    w.alert(
        "HostHighCpuLoad",
        {"job": "search-indexer", "severity": "warning", "instance": "10.8.30.2:9100"},
        onset - 3,
        description="CPU load is > 90% on 10.8.30.2",
    )
    w.every(
        "slot-engine",
        "ERROR",
        lambda r: logfmt(
            level="error",
            msg="could not acquire db connection",
            pool="slots",
            in_use="32/32",
            waiters=int(r.integers(40, 130)),
            wait_ms=5000,
            err="timeout waiting for idle object",
        ),
        since_ago=onset - 1,
        gap_s=(8, 30),
    )
    w.every(
        "slot-engine",
        "INFO",
        lambda r: logfmt(level="info", msg="slots computed", clinic=f"c{int(r.integers(10, 99))}"),
        since_ago=240,
        until_ago=onset,
        gap_s=(40, 120),
    )
    w.every(
        "booking-gateway",
        "ERROR",
        lambda r: logfmt(
            level="error",
            msg="upstream call failed",
            upstream="slot-engine",
            path="/v2/slots",
            err="context deadline exceeded",
            took=f"{r.uniform(5, 6):.2f}s",
        ),
        since_ago=onset - 2,
        gap_s=(10, 35),
    )
    w.every(
        "patient-web",
        "WARN",
        lambda r: logfmt(
            level="warn",
            msg="render failed",
            route="/book",
            status=504,
            backend="booking-gateway",
            request_id=f"{int(r.integers(16**11, 16**12)):x}",
        ),
        since_ago=onset - 3,
        gap_s=(10, 40),
    )
    w.every(
        "search-indexer",
        "INFO",
        lambda r: logfmt(level="info", msg="indexed batch", docs=int(r.integers(800, 4000))),
        since_ago=onset,
        gap_s=(30, 90),
    )
    w.every(
        "slotdb",
        "LOG",
        lambda r: f"checkpoint complete: wrote {int(r.integers(200, 2000))} buffers",
        since_ago=240,
        gap_s=(280, 320),
    )
    return w


_REMIT_SCENARIOS = """\
# No alerts.json on purpose: the alert source holds nothing.
- id: remit-transfers-failing
  question: Money transfers have been failing for the last half hour, find out why.
  expect:
    root_cause_service: ledger-writer
    category: disk_full
    keywords_all: [ledger-writer, space]
    keywords_none: ["root cause: fx-quoter", "root cause: remit-api"]
    evidence_sources: [metrics, logs]
"""

_STACK = (
    "java.io.IOException: No space left on device\n"
    "\tat java.base/java.io.FileOutputStream.writeBytes(Native Method)\n"
    "\tat java.base/java.io.FileOutputStream.write(FileOutputStream.java:349)\n"
    "\tat com.remit.ledger.journal.SegmentWriter.append(SegmentWriter.java:{line})\n"
    "\tat com.remit.ledger.PostingService.commit(PostingService.java:212)"
)


def remit() -> WorldWriter:
    """ledger-writer's journal volume fills up at 13:22; postings fail, remit-api returns 503."""
    w = WorldWriter("remit", datetime(2027, 2, 17, 13, 55, tzinfo=UTC), seed=217)
    full = 33.0
    capacity = 200e9
    for app, pod in (("remit-api", "remit-api-5d8f9-xk2"), ("ledger-writer", "ledger-writer-0")):
        labels = {"app_kubernetes_io_name": app, "pod": pod, "namespace": "payments"}
        cores = w.baseline(0.6, amplitude=0.2)
        w.add_series("container_cpu_usage_seconds_total", labels, cumulative(w, cores, 5e4))
    labels = {"app_kubernetes_io_name": "fx-quoter", "pod": "fx-quoter-1", "namespace": "payments"}
    w.add_series("container_cpu_usage_seconds_total", labels, cumulative(w, w.baseline(1.1), 9e4))
    w.add_series("fx_quote_age_seconds", labels, w.baseline(1.5, noise=0.2))
    volume = {"app_kubernetes_io_name": "ledger-writer", "persistentvolumeclaim": "journal-ledger-writer-0"}
    start_ago = 200.0
    used = []
    for ts in w.grid:
        minutes = (w.minutes_ago(0) - ts) / 60
        grown = 0.55 + 0.45 * max(0.0, start_ago - minutes) / (start_ago - full)
        used.append(capacity * min(1.0, grown) * (1 + float(w.rng.normal(0, 0.002))))
    used = [min(u, capacity) for u in used]
    w.add_series("kubelet_volume_stats_used_bytes", volume, used, digits=0)
    w.add_series("kubelet_volume_stats_capacity_bytes", volume, [capacity for _ in w.grid], digits=0)
    api = {"app_kubernetes_io_name": "remit-api", "pod": "remit-api-5d8f9-xk2", "namespace": "payments"}
    done = w.shift(w.baseline(7.0, amplitude=0.3), minutes_ago=full, target=0.3)
    failed = w.shift(w.baseline(0.01, noise=0.5), minutes_ago=full, target=6.5)
    w.add_series("remit_transfers_total", {**api, "outcome": "completed"}, cumulative(w, done, 3e5))
    w.add_series("remit_transfers_total", {**api, "outcome": "failed"}, cumulative(w, failed, 150))
    w.every(
        "ledger-writer",
        "ERROR",
        lambda r: "Failed to append posting batch\n" + _STACK.format(line=int(r.integers(90, 99))),
        since_ago=full,
        gap_s=(15, 45),
    )
    w.every(
        "ledger-writer",
        "INFO",
        lambda r: f"journal segment {int(r.integers(10**5, 10**6))} rolled ({int(r.integers(60, 70))} MiB)",
        since_ago=240,
        until_ago=full,
        gap_s=(200, 400),
    )
    w.every(
        "remit-api",
        "ERROR",
        lambda r: json.dumps(
            {
                "msg": "transfer commit failed",
                "transfer": f"tr_{int(r.integers(10**7, 10**8))}",
                "dependency": "ledger-writer",
                "status": 503,
                "error": "posting rejected: journal unavailable",
            }
        ),
        since_ago=full - 1,
        gap_s=(10, 40),
    )
    w.every(
        "remit-api",
        "INFO",
        lambda r: json.dumps({"msg": "transfer accepted", "amount": int(r.integers(10, 5000))}),
        since_ago=240,
        gap_s=(40, 110),
    )
    w.every(
        "fx-quoter",
        "WARN",
        lambda r: json.dumps({"msg": "provider quote stale, using cache", "pair": "EURGBP"}),
        since_ago=240,
        gap_s=(900, 1800),
    )
    return w


_BROADCAST_SCENARIOS = """\
- id: broadcast-evening-peak
  question: Traffic is way up this evening and an alert was flapping. Do we have an incident?
  expect:
    healthy: true
    keywords_none: ["root cause:"]
"""


def broadcast() -> WorldWriter:
    """Nothing is wrong: the evening viewing peak and an edge packet-loss alert that flapped and resolved."""
    w = WorldWriter("broadcast", datetime(2027, 10, 21, 20, 30, tzinfo=UTC), seed=1021, hours=6)
    for container, viewers in (("rtmp-edge", 18000.0), ("playlist-api", 4000.0), ("vod-origin", 2500.0)):
        labels = {"container": container, "namespace": "live", "pod": f"{container}-7c9d-0"}
        shaped = _evening(w, viewers)
        w.add_series("active_sessions", labels, shaped, digits=0)
        w.add_series(
            "request_duration_seconds", {**labels, "quantile": "0.95"}, w.baseline(0.08, noise=0.08), 4
        )
        w.add_series("error_ratio", labels, w.baseline(0.0015, noise=0.3), 5)
        w.add_series("cpu_utilisation_percent", labels, [s / viewers * 35 for s in shaped], 2)
    for started, ended in ((170, 166), (121, 118), (64, 61), (16, 12)):
        w.resolved_alert(
            "EdgePacketLossHigh",
            {"container": "rtmp-edge", "severity": "warning", "pop": "fra2"},
            started_ago=started,
            ended_ago=ended,
            description="packet loss above 1% on fra2 uplink",
        )
    w.every(
        "rtmp-edge",
        "info",
        lambda r: (
            f"10.9.{int(r.integers(0, 255))}.{int(r.integers(1, 255))} - - "
            f'"GET /live/ch{int(r.integers(1, 40))}/seg{int(r.integers(10**4, 10**5))}.ts HTTP/1.1" '
            f"{200 if r.random() > 0.02 else 404} "
            f"{int(r.integers(10**5, 10**6))} rt={r.uniform(0.01, 0.2):.3f}"
        ),
        since_ago=360,
        gap_s=(50, 130),
    )
    w.every(
        "playlist-api",
        "info",
        lambda r: f"served playlist ch{int(r.integers(1, 40))} variants=5 in {int(r.integers(2, 30))}ms",
        since_ago=360,
        gap_s=(60, 180),
    )
    w.every(
        "rtmp-edge",
        "warn",
        lambda r: f"client 10.9.{int(r.integers(0, 255))}.7 slow reader, dropping to 720p",
        since_ago=360,
        gap_s=(900, 1500),
    )
    return w


def _evening(w: WorldWriter, level: float) -> list[float]:
    """A steep but ordinary evening ramp: sessions climb through the afternoon into a 20:30 peak."""
    out = []
    for ts in w.grid:
        hour = datetime.fromtimestamp(ts, tz=UTC)
        h = hour.hour + hour.minute / 60
        shape = 0.25 + 0.75 * max(0.0, min(1.0, (h - 14.5) / 6.0)) ** 1.5
        out.append(level * shape * (1 + float(w.rng.normal(0, 0.03))))
    return out


def write_heldout_style_worlds() -> None:
    """Rewrite clinic, remit (without alerts.json) and broadcast."""
    clinic().write(
        description="A clinic booking system (patient-web, booking-gateway, slot-engine, slotdb, "
        "search-indexer) labelled by job/instance: slot-engine's connection pool saturates at 09:05.",
        scenarios=_CLINIC_SCENARIOS,
    )
    target = remit().write(
        description="A remittance platform (remit-api, ledger-writer, fx-quoter) with no alert "
        "source: the ledger-writer journal volume fills at 13:22.",
        scenarios=_REMIT_SCENARIOS,
    )
    (target / "alerts.json").unlink()
    broadcast().write(
        description="A live video platform (rtmp-edge, playlist-api, vod-origin) at its evening peak; "
        "nothing is wrong.",
        scenarios=_BROADCAST_SCENARIOS,
    )


if __name__ == "__main__":
    write_heldout_style_worlds()
