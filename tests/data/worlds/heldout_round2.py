"""A second round of held-out worlds in another author's style (see heldout_style.py).

`tariff`: a config-map change makes rate-engine reject its settings and crash-loop; a CPU red
herring on report-builder starts two minutes earlier. `pantry`: a JVM heap leak in catalog-svc seen
only through heap and GC metrics, SEVERE/WARNING logs and OOMKilled events, with no alert source.
`harbor`: healthy now; one service had an incident four hours ago that fully recovered.
Run `python -m tests.data.worlds.heldout_round2`; the output is identical for the same code.
"""

from __future__ import annotations

from datetime import UTC, datetime

from tests.data.worlds.heldout_style import cumulative
from tests.data.worlds.world_writer import WorldWriter

_TARIFF_SCENARIOS = """\
- id: tariff-quotes-failing
  question: Shipping quotes have been failing at checkout for the last 20 minutes. What happened?
  expect:
    root_cause_service: rate-engine
    category: configuration_error
    keywords_all: [rate-engine, invalid value]
    keywords_none: ["root cause: report-builder", "root cause: checkout-api"]
    evidence_sources: [metrics, logs]
"""


def _restarts(w: WorldWriter, since_ago: float, every_min: float) -> list[float]:
    """A restart counter that climbs by one every `every_min` minutes (a crash-loop back-off)."""
    now = w.minutes_ago(0)
    out = []
    for ts in w.grid:
        minutes = (now - ts) / 60
        out.append(float(max(0, int((since_ago - minutes) / every_min) + 1)) if minutes <= since_ago else 0.0)
    return out


def tariff() -> WorldWriter:
    """rate-engine's config map is edited at 11:02; every restart fails on `invalid value`."""
    w = WorldWriter("tariff", datetime(2027, 4, 14, 11, 24, tzinfo=UTC), seed=414)
    onset = 22.0
    engine = {"app": "rate-engine", "pod": "rate-engine-6b7f4-q9z", "namespace": "shipping"}
    w.add_series("kube_pod_container_status_restarts_total", engine, _restarts(w, onset, 2.5), 0)
    up = [0.0 if (w.minutes_ago(0) - ts) / 60 <= onset else 1.0 for ts in w.grid]
    w.add_series("up", engine, up, 0)
    checkout = {"app": "checkout-api", "pod": "checkout-api-55c-2", "namespace": "shipping"}
    ok = w.shift(w.baseline(24.0, amplitude=0.3), minutes_ago=onset - 1, target=9.0)
    bad = w.shift(w.baseline(0.02, noise=0.5), minutes_ago=onset - 1, target=14.0)
    w.add_series("http_server_requests_total", {**checkout, "status": "2xx"}, cumulative(w, ok, 2e6))
    w.add_series("http_server_requests_total", {**checkout, "status": "5xx"}, cumulative(w, bad, 900))
    reports = {"app": "report-builder", "pod": "report-builder-0", "namespace": "shipping"}
    cpu = w.shift(w.baseline(0.4, noise=0.08), minutes_ago=onset + 2, target=3.9, ceiling=4.0)
    w.add_series("container_cpu_usage_seconds_total", reports, cumulative(w, cpu, 7e4))
    w.alert(
        "KubePodCrashLooping",
        {
            "namespace": "shipping",
            "pod": "rate-engine-6b7f4-q9z",
            "container": "rate-engine",
            "severity": "warning",
        },
        onset - 8,
        description="Pod shipping/rate-engine-6b7f4-q9z is in waiting state (reason: CrashLoopBackOff).",
    )
    w.alert(
        "CPUThrottlingHigh",
        {
            "namespace": "shipping",
            "pod": "report-builder-0",
            "container": "report-builder",
            "severity": "info",
        },
        onset - 4,
        description="93% throttling of CPU in namespace shipping for report-builder.",
    )
    w.alert(
        "CheckoutQuoteErrors",
        {"app": "checkout-api", "severity": "critical"},
        onset - 6,
        summary="checkout-api 5xx ratio above 20% on /quote",
    )
    w.log(
        float(w.minutes_ago(onset + 0.5)),
        "rate-engine",
        "INFO",
        "config map shipping/rate-engine-config changed (resourceVersion 88121), reloading",
    )
    w.every(
        "rate-engine",
        "ERROR",
        lambda r: (
            'invalid value for RATE_CACHE_TTL: "15 minutes" (expected a duration like 15m); refusing to start'
        ),
        since_ago=onset,
        gap_s=(140, 160),
    )
    w.every(
        "rate-engine",
        "INFO",
        lambda r: f"quoted zone {int(r.integers(1, 9))} in {int(r.integers(3, 20))}ms",
        since_ago=240,
        until_ago=onset + 1,
        gap_s=(40, 120),
    )
    w.every(
        "checkout-api",
        "ERROR",
        lambda r: (
            f"POST /quote failed: rate-engine:8080 connection refused (attempt {int(r.integers(1, 4))})"
        ),
        since_ago=onset - 1,
        gap_s=(10, 30),
    )
    w.every(
        "report-builder",
        "INFO",
        lambda r: f"monthly carrier report: {int(r.integers(10, 99))}% rendered",
        since_ago=onset + 2,
        gap_s=(60, 120),
    )
    return w


_PANTRY_SCENARIOS = """\
# No alerts.json on purpose: the alert source holds nothing.
- id: pantry-catalog-restarting
  question: The product catalog keeps getting slower and then restarting every so often. Why?
  expect:
    root_cause_service: catalog-svc
    category: memory_leak
    keywords_all: [catalog-svc, heap]
    keywords_none: ["root cause: storefront", "root cause: pricing-svc"]
    evidence_sources: [metrics, logs]
"""


def pantry() -> WorldWriter:
    """catalog-svc leaks heap since a cache change; it GC-thrashes and is OOMKilled about hourly."""
    w = WorldWriter("pantry", datetime(2027, 9, 2, 16, 10, tzinfo=UTC), seed=902)
    limit = 2.0 * 1024**3
    now = w.minutes_ago(0)
    heap, pauses = [], []
    for ts in w.grid:
        minutes_into = (240 - (now - ts) / 60) % 70
        fill = 0.35 + 0.6 * minutes_into / 70
        heap.append(limit * fill * (1 + float(w.rng.normal(0, 0.01))))
        pauses.append(0.02 + 1.8 * max(0.0, fill - 0.7) ** 2 * (1 + float(w.rng.normal(0, 0.1))))
    catalog = {"application": "catalog-svc", "pod": "catalog-svc-7d9-1"}
    w.add_series("jvm_memory_used_bytes", {**catalog, "area": "heap"}, heap, 0)
    w.add_series("jvm_memory_max_bytes", {**catalog, "area": "heap"}, [limit for _ in w.grid], 0)
    w.add_series("jvm_gc_pause_seconds_max", catalog, pauses, 4)
    for application, latency in (("storefront", 0.18), ("pricing-svc", 0.03)):
        labels = {"application": application, "pod": f"{application}-1"}
        w.add_series("http_server_requests_seconds_max", labels, w.baseline(latency, noise=0.1), 4)
    w.add_series(
        "http_server_requests_seconds_max", {**catalog, "uri": "/products"}, [0.05 + 4 * p for p in pauses], 4
    )
    for minutes in (205.0, 135.0, 65.0):
        w.log(
            float(w.minutes_ago(minutes)),
            "catalog-svc",
            "WARNING",
            "Container catalog-svc terminated: reason=OOMKilled exitCode=137, restarting",
            pod="catalog-svc-7d9-1",
        )
        w.log(
            float(w.minutes_ago(minutes - 0.1)),
            "catalog-svc",
            "SEVERE",
            "java.lang.OutOfMemoryError: Java heap space\n"
            "\tat com.pantry.catalog.ProductCache.put(ProductCache.java:88)",
        )
    w.every(
        "catalog-svc",
        "WARNING",
        lambda r: (
            f"[GC (Allocation Failure) {int(r.integers(1400, 1990))}M->{int(r.integers(1300, 1900))}M"
            f"(2048M), {r.uniform(0.4, 2.5):.4f} secs] heap usage after full GC above 85%"
        ),
        since_ago=240,
        gap_s=(120, 300),
    )
    w.every(
        "catalog-svc",
        "INFO",
        lambda r: f"ProductCache size={int(r.integers(10**5, 10**6))} entries",
        since_ago=240,
        gap_s=(200, 400),
    )
    w.every(
        "storefront",
        "WARNING",
        lambda r: f"catalog-svc call slow: GET /products took {r.uniform(2, 6):.1f}s",
        since_ago=240,
        gap_s=(240, 600),
    )
    w.every(
        "pricing-svc",
        "INFO",
        lambda r: f"price list refreshed ({int(r.integers(100, 900))} skus)",
        since_ago=240,
        gap_s=(300, 600),
    )
    return w


_HARBOR_SCENARIOS = """\
- id: harbor-anything-wrong
  question: Is anything wrong with the booking platform right now?
  expect:
    healthy: true
    keywords_none: ["root cause:"]
"""


def harbor() -> WorldWriter:
    """Healthy now; berth-api had a database failover incident 4 hours ago that fully recovered."""
    w = WorldWriter("harbor", datetime(2027, 3, 9, 15, 0, tzinfo=UTC), seed=309, hours=6)
    start, end = 245.0, 228.0
    for service, rps, p95 in (("berth-api", 30.0, 0.09), ("harbor-web", 45.0, 0.2), ("tide-feed", 8.0, 0.05)):
        labels = {"service": service, "env": "prod"}
        latency = w.baseline(p95, amplitude=0.1, noise=0.06)
        errors = w.baseline(0.001, noise=0.3)
        if service == "berth-api":
            now = w.minutes_ago(0)
            for i, ts in enumerate(w.grid):
                if end <= (now - ts) / 60 <= start:
                    latency[i] *= 30
                    errors[i] = 0.4
        w.add_series("request_latency_p95_seconds", labels, latency, 4)
        w.add_series("request_error_ratio", labels, errors, 5)
        w.add_series("requests_per_second", labels, w.baseline(rps, amplitude=0.3))
    w.resolved_alert(
        "BerthApiErrorRate",
        {"service": "berth-api", "severity": "critical"},
        started_ago=start - 3,
        ended_ago=end - 2,
        summary="berth-api error ratio above 5%",
    )
    w.every(
        "berth-api",
        "ERROR",
        lambda r: f"database unavailable: failover in progress (pg-primary), retry {int(r.integers(1, 5))}",
        since_ago=start,
        until_ago=end,
        gap_s=(10, 40),
    )
    w.log(float(w.minutes_ago(end)), "berth-api", "INFO", "database connection restored, primary pg-2")
    w.every(
        "berth-api",
        "INFO",
        lambda r: f"berth {int(r.integers(1, 60))} booked for vessel IMO{int(r.integers(10**6, 10**7))}",
        since_ago=360,
        gap_s=(60, 180),
    )
    w.every(
        "harbor-web",
        "INFO",
        lambda r: f"GET /schedule 200 {int(r.integers(20, 200))}ms",
        since_ago=360,
        gap_s=(40, 120),
    )
    w.every(
        "tide-feed",
        "WARN",
        lambda r: "upstream tide station NOAA-8443970 reported a gap, interpolating",
        since_ago=360,
        gap_s=(1200, 2400),
    )
    return w


def write_heldout_round2_worlds() -> None:
    """Rewrite tariff, pantry (without alerts.json) and harbor."""
    tariff().write(
        description="A shipping checkout (checkout-api, rate-engine, report-builder) labelled by app/pod: "
        "a config-map edit at 11:02 makes rate-engine crash-loop; report-builder's CPU rose at 11:00.",
        scenarios=_TARIFF_SCENARIOS,
    )
    target = pantry().write(
        description="A grocery catalog (storefront, catalog-svc, pricing-svc) labelled by application, "
        "no alert source: catalog-svc leaks heap and is OOMKilled about every 70 minutes.",
        scenarios=_PANTRY_SCENARIOS,
    )
    (target / "alerts.json").unlink()
    harbor().write(
        description="A port booking platform (harbor-web, berth-api, tide-feed); healthy now, berth-api "
        "had a database failover incident 4 hours ago that fully recovered.",
        scenarios=_HARBOR_SCENARIOS,
    )


if __name__ == "__main__":
    write_heldout_round2_worlds()
