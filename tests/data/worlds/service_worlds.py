"""Scenario worlds about services: `routing` (a bad deploy beside a CPU red herring), `travel` (a slow
downstream dependency) and `notify` (a configuration error). Rewritten by `generate_scenarios`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from tests.data.worlds.world_writer import WorldWriter

_ROUTING_SCENARIOS = """\
- id: routing-bad-deploy
  question: Dispatchers say route suggestions started failing about 40 minutes ago. What changed?
  expect:
    root_cause_service: route-planner
    category: bad_deploy
    keywords_all: [route-planner, 5.2.0]
    evidence_sources: [logs, metrics]
- id: routing-red-herring-cpu
  question: Is the CPU alert on tracking-ingest the reason dispatch-api is returning 502s?
  expect:
    root_cause_service: route-planner
    keywords_all: [route-planner]
    keywords_none: ["root cause: tracking-ingest"]
# Multi-turn with a given history: a follow-up that only makes sense after the first answer.
- id: routing-followup-dispatch
  question: What about dispatch-api, is it broken itself?
  history:
    - query: Why is dispatch-api returning 502s?
      summary: "Root cause: route-planner (deploy regression)."
      root_cause_service: route-planner
  expect:
    root_cause_service: route-planner
    keywords_all: [dispatch-api]
"""


def routing() -> WorldWriter:
    """route-planner 5.2.0 rolls out at 13:22 and throws NullPointerExceptions; dispatch-api sees 502s."""
    w = WorldWriter("routing", datetime(2027, 6, 9, 14, 0, tzinfo=UTC), seed=609)
    deploy, broken = 38, 36
    pods = {
        "route-planner": ["route-planner-7d9c-4kq2z", "route-planner-7d9c-9wx1m"],
        "dispatch-api": ["dispatch-api-5b8-hh2k"],
    }
    for component, names in pods.items():
        for pod in names:
            labels = {"component": component, "pod": pod, "region": "eu-central"}
            errors = w.baseline(0.05, noise=0.5)
            target = 9.5 if component == "route-planner" else 6.1
            errors = w.shift(
                errors, minutes_ago=broken - (component == "dispatch-api"), target=target, ramp=2
            )
            w.add_series("rpc_server_errors_per_second", labels, errors)
            w.add_series(
                "rpc_server_latency_p95_ms",
                labels,
                w.baseline(140.0 if component == "route-planner" else 60.0),
            )
            w.add_series("container_cpu_usage_cores", labels, w.baseline(0.6, amplitude=0.3))
    ingest = {"component": "tracking-ingest", "pod": "tracking-ingest-0", "region": "eu-central"}
    w.add_series(
        "container_cpu_usage_cores",
        ingest,
        [min(v, 3.98) for v in w.baseline(3.85, amplitude=0.0, noise=0.02)],
    )
    w.add_series("rpc_server_errors_per_second", ingest, w.baseline(0.02, noise=0.5))
    before = [ts for ts in w.grid if ts < w.minutes_ago(deploy)]
    for version, grid in (("5.1.4", before), ("5.2.0", [ts for ts in w.grid if ts >= w.minutes_ago(deploy)])):
        w.series.append(
            {
                "metric": "deployment_revision_info",
                "labels": {"component": "route-planner", "version": version},
                "samples": [[ts, 1.0] for ts in grid],
            }
        )
    w.alert(
        "RpcErrorRateHigh",
        {"component": "route-planner", "severity": "critical"},
        broken - 3,
        summary="route-planner failing more than 20% of PlanRoute calls",
    )
    w.alert(
        "UpstreamErrors",
        {"component": "dispatch-api", "severity": "warning"},
        broken - 4,
        summary="dispatch-api answering 502 for route suggestions",
    )
    w.alert(
        "ContainerCpuHigh",
        ingest | {"severity": "warning"},
        190,
        summary="tracking-ingest CPU above 95% of its limit (nightly compaction)",
    )
    start = float(w.minutes_ago(deploy))
    for n, pod in enumerate(pods["route-planner"]):
        w.log(
            start + n * 40,
            "route-planner",
            "info",
            f"starting route-planner version 5.2.0 (git 9f3ac21) on {pod}",
        )
    w.log(
        start - 20,
        "route-planner",
        "info",
        "rollout route-planner 5.1.4 -> 5.2.0 started by deploy-bot (change CHG-2231)",
    )
    w.every(
        "route-planner",
        "error",
        lambda _: (
            'PlanRoute failed: java.lang.NullPointerException: Cannot invoke "StopWindow.start()" '
            "at com.fleetco.routing.RouteOptimizer.scoreStops"
            f"(RouteOptimizer.java:{int(w.rng.integers(212, 218))})"
        ),
        since_ago=broken,
        gap_s=(15, 60),
    )
    w.every(
        "route-planner",
        "info",
        lambda _: f"PlanRoute ok stops={int(w.rng.integers(4, 40))} {int(w.rng.integers(40, 220))}ms",
        since_ago=240,
        until_ago=deploy,
        gap_s=(60, 150),
    )
    w.every(
        "dispatch-api",
        "error",
        lambda _: (
            f"GET /v3/suggestions 502 upstream route-planner returned INTERNAL "
            f"(job=J-{int(w.rng.integers(10**5, 10**6))})"
        ),
        since_ago=broken - 1,
        gap_s=(30, 80),
    )
    w.every(
        "tracking-ingest",
        "info",
        lambda _: (
            f"compaction segment {int(w.rng.integers(1000, 9999))} merged "
            f"({int(w.rng.integers(200, 900))} MB)"
        ),
        since_ago=240,
        gap_s=(300, 500),
    )
    return w


_TRAVEL_SCENARIOS = """\
- id: travel-search-slow
  question: Why is flight search so slow for customers right now?
  expect:
    root_cause_service: fx-rates
    category: slow_dependency
    keywords_all: [fx-rates]
    evidence_sources: [metrics, logs]
- id: travel-booking-timeouts
  question: Bookings time out at the price confirmation step. Is booking-api broken?
  expect:
    root_cause_service: fx-rates
    category: slow_dependency
    keywords_all: [fx-rates, booking-api]
"""


def travel() -> WorldWriter:
    """fx-rates' upstream feed slows from 18:05; search-api and booking-api time out calling fx-rates."""
    w = WorldWriter("travel", datetime(2027, 2, 21, 18, 45, tzinfo=UTC), seed=221)
    slow = 40
    callers = {"search-api": ("search-api-0", 420.0, 2100.0), "booking-api": ("booking-api-0", 310.0, 2050.0)}
    fx = {"service_name": "fx-rates", "instance": "fx-rates-1", "env": "prod"}
    w.add_series(
        "http_server_duration_p99_ms", fx, w.shift(w.baseline(35.0), minutes_ago=slow, target=4700.0, ramp=5)
    )
    w.add_series("http_server_requests_per_second", fx, w.baseline(240.0, amplitude=0.35))
    w.add_series(
        "upstream_feed_latency_ms",
        fx | {"upstream": "ecb-feed"},
        w.shift(w.baseline(25.0), minutes_ago=slow, target=4650.0, ramp=5),
    )
    for name, (instance, p99, timed_out) in callers.items():
        labels = {"service_name": name, "instance": instance, "env": "prod"}
        latency = w.shift(w.baseline(p99), minutes_ago=slow - 1, target=timed_out, ramp=4, ceiling=2100.0)
        w.add_series("http_server_duration_p99_ms", labels, latency)
        w.add_series("http_server_requests_per_second", labels, w.baseline(55.0, amplitude=0.35))
        w.add_series(
            "outbound_call_timeouts_per_second",
            labels | {"peer": "fx-rates"},
            w.shift(w.baseline(0.01, noise=0.5), minutes_ago=slow - 1, target=3.2, ramp=4),
        )
    w.add_series(
        "http_server_duration_p99_ms",
        {"service_name": "inventory-cache", "instance": "inventory-cache-0", "env": "prod"},
        w.baseline(4.0),
    )
    w.alert(
        "LatencySLOBurn",
        {"service_name": "search-api", "severity": "critical"},
        slow - 8,
        summary="search-api p99 above 2s, SLO burn rate 14x",
    )
    w.alert(
        "LatencySLOBurn",
        {"service_name": "booking-api", "severity": "warning"},
        slow - 10,
        summary="booking-api p99 above 2s",
    )
    for name in callers:
        w.every(
            name,
            "warn",
            lambda _: (
                f"call to fx-rates GET /v1/rates?base=EUR timed out after 2000ms (attempt "
                f"{int(w.rng.integers(1, 4))}/3)"
            ),
            since_ago=slow - 1,
            gap_s=(20, 60),
        )
    w.every(
        "fx-rates",
        "warn",
        lambda _: (
            f"upstream ecb-feed responded in {int(w.rng.integers(3800, 5200))}ms (budget 500ms), "
            f"serving stale=false"
        ),
        since_ago=slow,
        gap_s=(30, 70),
    )
    w.every(
        "fx-rates",
        "info",
        lambda _: "rates refreshed base=EUR symbols=168",
        since_ago=240,
        until_ago=slow,
        gap_s=(120, 200),
    )
    w.every(
        "search-api",
        "info",
        lambda _: f"search ok results={int(w.rng.integers(20, 300))}",
        since_ago=240,
        gap_s=(90, 200),
    )
    return w


_NOTIFY_SCENARIOS = """\
- id: notify-emails-not-sent
  question: Customers stopped receiving order confirmation emails. Why?
  expect:
    root_cause_service: notification-service
    category: configuration_error
    keywords_all: [notification-service]
    evidence_sources: [logs]
- id: notify-crashloop
  question: Why does notification-service keep restarting?
  expect:
    root_cause_service: notification-service
    category: configuration_error
    keywords_all: [notifier.smtp.port]
"""


def notify() -> WorldWriter:
    """A config change at 07:50 sets notifier.smtp.port to an invalid value; the pods crash-loop."""
    w = WorldWriter("notify", datetime(2027, 10, 4, 8, 30, tzinfo=UTC), seed=1004)
    changed = 40
    key = "app_kubernetes_io_name"
    for pod in ("notification-service-64d-2wz", "notification-service-64d-k8p"):
        labels = {key: "notification-service", "pod": pod}
        restarts = w.baseline(0.0, noise=0.0)
        for i, ts in enumerate(w.grid):
            restarts[i] = max(0.0, (ts - w.minutes_ago(changed - 1)) // 300)
        w.add_series("kube_pod_container_status_restarts_total", labels, restarts, digits=0)
        sent = w.shift(
            w.baseline(140.0, amplitude=0.4), minutes_ago=changed - 1, target=0.0, ramp=1, noise=0.0
        )
        w.add_series("notifications_delivered_per_minute", labels, sent, digits=1)
    queue = {key: "order-events", "topic": "order.confirmed"}
    lag = w.shift(w.baseline(2.0, noise=0.3), minutes_ago=changed - 1, target=2400.0, ramp=40)
    w.add_series("consumer_group_lag_seconds", queue, lag)
    w.add_series(
        "notifications_delivered_per_minute",
        {key: "push-gateway", "pod": "push-gateway-0"},
        w.baseline(90.0, amplitude=0.4),
    )
    w.alert(
        "KubePodCrashLooping",
        {key: "notification-service", "severity": "critical"},
        changed - 10,
        summary="notification-service pods are crash looping",
    )
    w.alert(
        "ConsumerLagHigh",
        {key: "order-events", "severity": "warning"},
        changed - 15,
        summary="order.confirmed consumer lag above 10 minutes",
    )
    start = float(w.minutes_ago(changed))
    w.log(
        start,
        "config-server",
        "info",
        "configuration change applied: notification-service revision 41 (notifier.smtp.port: 587 -> "
        "'587s') by ops-ui user=mjansen",
    )
    moment = start + 30
    while moment < float(w.minutes_ago(0)):
        w.log(
            moment,
            "notification-service",
            "info",
            "Starting NotificationApplication v3.12.2 with profile prod",
        )
        w.log(
            moment + 4,
            "notification-service",
            "error",
            "APPLICATION FAILED TO START: Failed to bind properties under 'notifier.smtp.port' to int: "
            "invalid configuration value '587s'",
        )
        moment += float(w.rng.uniform(280, 330))
    w.every(
        "notification-service",
        "info",
        lambda _: (
            f"sent order confirmation to customer c_{int(w.rng.integers(10**6, 10**7))} via smtp (250 OK)"
        ),
        since_ago=240,
        until_ago=changed,
        gap_s=(40, 120),
    )
    w.every(
        "push-gateway",
        "info",
        lambda _: f"delivered {int(w.rng.integers(20, 90))} push notifications",
        since_ago=240,
        gap_s=(120, 240),
    )
    return w


def write_service_worlds() -> None:
    """Rewrite the routing, travel and notify worlds."""
    routing().write(
        description="Fleet routing (dispatch-api, route-planner, tracking-ingest): route-planner 5.2.0 rolls "
        "out at 13:22 UTC and fails PlanRoute; tracking-ingest's nightly compaction burns CPU (red herring).",
        scenarios=_ROUTING_SCENARIOS,
    )
    travel().write(
        description="Flight booking (search-api, booking-api, fx-rates, inventory-cache): fx-rates' upstream "
        "feed slows at 18:05 UTC and its callers time out.",
        scenarios=_TRAVEL_SCENARIOS,
    )
    notify().write(
        description="Notifications (notification-service, push-gateway, config-server): a "
        "configuration change "
        "at 07:50 UTC sets an invalid SMTP port and notification-service crash-loops.",
        scenarios=_NOTIFY_SCENARIOS,
    )
