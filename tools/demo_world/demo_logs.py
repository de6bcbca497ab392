"""The demo world's log lines: steady background traffic per service, then the incident's story."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from tools.demo_world.shapes import iso

Line = dict[str, Any]

_CHUNK = "Processed chunk {chunk}/1000 of nightly sales report ({rows} rows)"
_LEAK = (
    "HikariPool-1 - Connection leak detection triggered for "
    "org.postgresql.jdbc.PgConnection@{conn:x} on thread http-nio-8080-exec-{thread}"
)
_AUTH_FAILED = (
    "Failed to authorize payment for order ord-{order}: "
    "CannotGetJdbcConnectionException: Failed to obtain JDBC Connection"
)
_POOL_STATS = "HikariPool-1 - Pool stats (total=20, active=20, idle=0, waiting={waiting})"
_UPSTREAM_PAYMENT = (
    "Upstream payment timed out after 5000ms on POST /v1/payments/authorize (order ord-{order})"
)
_UPSTREAM_CHECKOUT = "Upstream checkout responded 504 for POST /api/v1/checkout in 5012ms (request_id={rid})"

_BACKGROUND: dict[str, list[tuple[str, str]]] = {
    "gateway": [
        ("INFO", "GET /api/v1/catalog 200 in {ms}ms (request_id={rid})"),
        ("INFO", "POST /api/v1/checkout 200 in {ms}ms (request_id={rid})"),
        ("INFO", "GET /api/v1/cart 200 in {ms}ms (request_id={rid})"),
    ],
    "checkout": [
        ("INFO", "Checkout completed for order ord-{order} in {ms}ms"),
        ("INFO", "Cart cart-{order} priced: {items} items, total {cents} cents"),
    ],
    "payment": [
        ("INFO", "Payment pay_{rid} authorized for order ord-{order} in {ms}ms"),
        ("INFO", "Settlement batch {items} flushed to acquirer in {ms}ms"),
    ],
    "inventory": [
        ("INFO", "Reserved {items} units of sku-{order} for order ord-{order}"),
        ("INFO", "Stock cache refreshed: {cents} SKUs in {ms}ms"),
    ],
}


def _fill(rng: np.random.Generator, template: str) -> str:
    return template.format(
        ms=int(rng.integers(12, 240)),
        rid=f"{int(rng.integers(16**7, 16**8)):08x}",
        order=int(rng.integers(40000, 49999)),
        items=int(rng.integers(1, 9)),
        cents=int(rng.integers(900, 45000)),
    )


def _line(ts: float, service: str, level: str, message: str, instance: str) -> Line:
    return {
        "ts": iso(ts),
        "service": service,
        "level": level,
        "message": message,
        "instance": instance,
    }


def _background(rng: np.random.Generator, now: datetime, instances: dict[str, list[str]]) -> list[Line]:
    start = (now - timedelta(hours=6)).timestamp()
    out: list[Line] = []
    for service, templates in _BACKGROUND.items():
        ts = start
        while ts < now.timestamp():
            level, template = templates[int(rng.integers(0, len(templates)))]
            instance = instances[service][int(rng.integers(0, len(instances[service])))]
            out.append(_line(ts, service, level, _fill(rng, template), instance))
            ts += float(rng.uniform(60, 180))
    # Low, steady noise that is not the incident: a flaky fraud-check dependency and declines.
    for _ in range(9):
        ts = float(rng.uniform(start, now.timestamp()))
        out.append(
            _line(
                ts,
                "payment",
                "ERROR",
                "Fraud check call failed with HTTP 429, falling back to rules engine",
                instances["payment"][0],
            )
        )
    for _ in range(14):
        ts = float(rng.uniform(start, now.timestamp()))
        order = int(rng.integers(40000, 49999))
        out.append(
            _line(
                ts,
                "payment",
                "WARN",
                f"Card declined by issuer for order ord-{order}: insufficient_funds",
                instances["payment"][1],
            )
        )
    return out


def _batch(rng: np.random.Generator, now: datetime, instance: str) -> list[Line]:
    """The nightly report job: busy and slow, but healthy (the red herring)."""
    out: list[Line] = []
    ts = (now - timedelta(hours=6)).timestamp()
    chunk = 388
    while ts < now.timestamp():
        chunk += 1
        out.append(
            _line(
                ts,
                "report-batch",
                "INFO",
                _CHUNK.format(chunk=chunk, rows=int(rng.integers(48000, 52000))),
                instance,
            )
        )
        if rng.random() < 0.25:
            out.append(
                _line(
                    ts + 5,
                    "report-batch",
                    "WARN",
                    f"GC pause of {int(rng.integers(900, 1600))}ms (G1 Evacuation Pause)",
                    instance,
                )
            )
        ts += float(rng.uniform(240, 420))
    return out


def _deploy(now: datetime, instances: list[str]) -> list[Line]:
    base = (now - timedelta(minutes=38)).timestamp()
    out: list[Line] = []
    for i, instance in enumerate(instances):
        ts = base + 35 * i
        out += [
            _line(
                ts,
                "payment",
                "INFO",
                "Received SIGTERM, shutting down PaymentService v2.4.0",
                instance,
            ),
            _line(
                ts + 18,
                "payment",
                "INFO",
                f"Starting PaymentService v2.4.1 (build 7c1e9a2) on {instance} with PID 1",
                instance,
            ),
            _line(ts + 24, "payment", "INFO", "HikariPool-1 - Start completed.", instance),
        ]
    out.append(
        _line(
            base + 120,
            "payment",
            "INFO",
            "Deployment payment v2.4.1 rolled out: 3/3 replicas ready",
            instances[0],
        )
    )
    return out


def _incident(rng: np.random.Generator, now: datetime, instances: dict[str, list[str]]) -> list[Line]:
    start = (now - timedelta(minutes=35)).timestamp()
    end = now.timestamp()
    out: list[Line] = []
    for instance in instances["payment"]:
        ts = start - 60
        for _ in range(4):
            ts += float(rng.uniform(10, 30))
            out.append(
                _line(
                    ts,
                    "payment",
                    "WARN",
                    _LEAK.format(conn=int(rng.integers(16**6, 16**7)), thread=int(rng.integers(1, 200))),
                    instance,
                )
            )
        ts = start
        while ts < end:
            out.append(
                _line(
                    ts,
                    "payment",
                    "ERROR",
                    "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
                    instance,
                )
            )
            if rng.random() < 0.5:
                order = int(rng.integers(40000, 49999))
                out.append(
                    _line(
                        ts + 1,
                        "payment",
                        "ERROR",
                        _AUTH_FAILED.format(order=order),
                        instance,
                    )
                )
            if rng.random() < 0.3:
                out.append(
                    _line(
                        ts + 2,
                        "payment",
                        "WARN",
                        _POOL_STATS.format(waiting=int(rng.integers(30, 46))),
                        instance,
                    )
                )
            ts += float(rng.uniform(20, 40))
    for hop, service, message in (
        (
            60,
            "checkout",
            _UPSTREAM_PAYMENT,
        ),
        (
            120,
            "gateway",
            _UPSTREAM_CHECKOUT,
        ),
    ):
        for instance in instances[service]:
            ts = start + hop
            while ts < end:
                level = "ERROR" if service == "checkout" else "WARN"
                out.append(_line(ts, service, level, _fill(rng, message), instance))
                ts += float(rng.uniform(25, 50))
    return out


def demo_logs(
    rng: np.random.Generator, now: datetime, *, instances: dict[str, list[str]], batch_instance: str
) -> list[Line]:
    """Every demo log line in time order."""
    lines = _background(rng, now, instances) + _batch(rng, now, batch_instance)
    lines += _deploy(now, instances["payment"]) + _incident(rng, now, instances)
    return sorted(lines, key=lambda line: (line["ts"], line["service"], line["message"]))
