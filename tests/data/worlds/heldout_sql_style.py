"""Two more worlds in a different author's style (see heldout_style.py).

`tenancy`: the cause is only visible in SQL (a batch job's long transaction blocking row updates)
plus a hint in its own info log; labels use `service_name`. `shopfront`: a bad deploy seen through
Java stack traces and nginx access lines with 5xx, labels `container`/`pod`, ratio and percent
metrics, and a memory alert on another service firing since long before.
Run `python -m tests.data.worlds.heldout_sql_style`; the output is identical for the same code.
"""

from __future__ import annotations

from datetime import UTC, datetime

from tests.data.worlds.heldout_style import cumulative
from tests.data.worlds.world_writer import WorldWriter

_TENANCY_SCENARIOS = """\
- id: tenancy-payments-timing-out
  question: Why are invoice payments timing out since about 02:10?
  expect:
    root_cause_service: billing-batch
    category: slow_query
    keywords_all: [billing-batch, lock]
    keywords_none: ["root cause: invoice-api", "root cause: email-relay"]
    evidence_sources: [sql, logs]
"""


def _tenancy_sql() -> str:
    rows = [
        "CREATE TABLE blocking_sessions (blocked_pid INTEGER, blocked_application VARCHAR(40),",
        "  blocked_query VARCHAR(200), wait_seconds INTEGER, blocking_pid INTEGER,",
        "  blocking_application VARCHAR(40), blocking_state VARCHAR(24), blocking_xact_age_s INTEGER,",
        "  blocking_query VARCHAR(200));",
        "CREATE TABLE activity (pid INTEGER PRIMARY KEY, application_name VARCHAR(40),",
        "  state VARCHAR(24), wait_event_type VARCHAR(16), xact_age_s INTEGER, query VARCHAR(200));",
    ]
    batch = "UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id"
    rows.append(f"INSERT INTO activity VALUES (7301, 'billing-batch', 'active', 'IO', 2460, '{batch}');")
    for i in range(14):
        pid, wait = 8100 + i, 20 + 37 * i % 290
        query = f"UPDATE invoices SET status = ''paid'' WHERE id = {581200 + 17 * i}"
        rows.append(
            f"INSERT INTO activity VALUES ({pid}, 'invoice-api', 'active', 'Lock', {wait}, '{query}');"
        )
        rows.append(
            f"INSERT INTO blocking_sessions VALUES ({pid}, 'invoice-api', '{query}', {wait}, 7301, "
            f"'billing-batch', 'active', 2460, '{batch}');"
        )
    for i in range(4):
        rows.append(
            f"INSERT INTO activity VALUES ({9000 + i}, 'reporting', 'idle', 'Client', 0, 'SELECT 1');"
        )
    return "\n".join(rows) + "\n"


def tenancy() -> WorldWriter:
    """billing-batch opens one huge transaction at 02:09; invoice-api row updates wait on its locks."""
    w = WorldWriter("tenancy", datetime(2027, 8, 3, 2, 50, tzinfo=UTC), seed=803)
    onset = 40.0
    api = {"service_name": "invoice-api", "instance": "invoice-api-2"}
    p99 = w.shift(w.baseline(0.12, noise=0.08), minutes_ago=onset - 1, target=9.5, ramp=3)
    w.add_series("invoice_request_duration_seconds_p99", api, p99)
    errors = w.shift(w.baseline(0.2, noise=0.4), minutes_ago=onset - 2, target=38.0, ramp=4)
    w.add_series("invoice_errors_percent", api, errors, 2)
    batch = {"service_name": "billing-batch", "instance": "billing-batch-cron-28190"}
    rows = w.shift([0.0 for _ in w.grid], minutes_ago=onset + 1, target=520.0, noise=0.05)
    w.add_series("batch_rows_processed_total", batch, cumulative(w, rows))
    relay = {"service_name": "email-relay", "instance": "email-relay-0"}
    w.add_series("smtp_queue_length", relay, w.shift(w.baseline(4.0), minutes_ago=200, target=60.0))
    w.alert(
        "InvoiceApiLatencyHigh",
        {"service_name": "invoice-api", "severity": "critical"},
        onset - 5,
        description="p99 latency of invoice-api above 5s",
    )
    w.alert(
        "SmtpQueueBacklog",
        {"service_name": "email-relay", "severity": "warning"},
        195,
        description="email-relay queue above 50 for 10m",
    )
    w.log(
        w.minutes_ago(onset + 1),
        "billing-batch",
        "info",
        "billing run 2027-08 started: recomputing 1184230 invoice totals in a single transaction",
    )
    w.every(
        "billing-batch",
        "info",
        lambda r: f"progress: {int(r.integers(1, 99))}% of invoice totals recomputed",
        since_ago=onset,
        gap_s=(240, 420),
    )
    w.every(
        "invoice-api",
        "error",
        lambda r: (
            "ERROR: canceling statement due to lock timeout; STATEMENT: UPDATE invoices SET "
            f"status = 'paid' WHERE id = {int(r.integers(10**5, 10**6))}"
        ),
        since_ago=onset - 2,
        gap_s=(15, 50),
    )
    w.every(
        "invoice-api",
        "info",
        lambda r: f"POST /invoices/{int(r.integers(10**5, 10**6))}/pay 200",
        since_ago=240,
        until_ago=onset,
        gap_s=(60, 150),
    )
    w.every(
        "email-relay",
        "warn",
        lambda r: f"deferred: 421 4.7.0 try again later (queue {int(r.integers(50, 70))})",
        since_ago=200,
        gap_s=(200, 400),
    )
    return w


_SHOPFRONT_SCENARIOS = """\
- id: shopfront-cart-errors
  question: Customers get errors when adding items to the cart since about 19:00, why?
  expect:
    root_cause_service: cart-svc
    category: bad_deploy
    keywords_all: [cart-svc, NullPointerException]
    keywords_none: ["root cause: recs-svc", "root cause: edge-nginx"]
    evidence_sources: [metrics, logs]
"""

_NPE = (
    'java.lang.NullPointerException: Cannot invoke "com.shop.cart.PromoRule.discount()" because '
    '"rule" is null\n\tat com.shop.cart.PricingService.apply(PricingService.java:{line})\n'
    "\tat com.shop.cart.CartController.addItem(CartController.java:64)"
)


def shopfront() -> WorldWriter:
    """cart-svc 4.18.0 rolls out at 18:58 and throws on every promo line; nginx returns 502."""
    w = WorldWriter("shopfront", datetime(2027, 11, 26, 19, 35, tzinfo=UTC), seed=1126)
    onset = 36.0
    for container, ratio, cpu in (("cart-svc", 0.002, 35.0), ("catalog-svc", 0.001, 20.0)):
        labels = {"container": container, "pod": f"{container}-6f7b8-q2", "namespace": "shop"}
        errors = w.baseline(ratio, noise=0.3)
        if container == "cart-svc":
            errors = w.shift(errors, minutes_ago=onset - 1, target=0.31)
        w.add_series("http_request_error_ratio", labels, errors, 5)
        w.add_series("container_cpu_usage_percent", labels, w.baseline(cpu, amplitude=0.3))
    recs = {"container": "recs-svc", "pod": "recs-svc-0", "namespace": "shop"}
    memory = [6.0e8 + 2.5e5 * i for i in range(len(w.grid))]
    w.add_series("container_memory_working_set_bytes", recs, memory, digits=0)
    nginx = {"container": "edge-nginx", "pod": "edge-nginx-0", "namespace": "shop"}
    w.add_series("nginx_http_requests_total", nginx, cumulative(w, w.baseline(120.0, amplitude=0.3)))
    w.alert(
        "ContainerMemoryHigh",
        {"container": "recs-svc", "severity": "warning"},
        170,
        message="recs-svc memory above 85% of limit",
    )
    w.alert(
        "CartErrorRatioHigh",
        {"container": "cart-svc", "severity": "critical"},
        onset - 4,
        message="More than 10% of cart requests fail",
    )
    w.log(
        w.minutes_ago(onset + 2),
        "cart-svc",
        "info",
        "Starting CartApplication v4.18.0 using Java 17.0.9 with PID 1",
    )
    w.log(w.minutes_ago(onset + 1.5), "cart-svc", "info", "Started CartApplication in 11.8 seconds")
    w.every(
        "cart-svc",
        "ERROR",
        lambda r: "Request processing failed\n" + _NPE.format(line=int(r.integers(80, 90))),
        since_ago=onset - 1,
        gap_s=(12, 40),
    )
    w.every(
        "edge-nginx",
        "info",
        lambda r: (
            f"10.1.{int(r.integers(0, 255))}.{int(r.integers(1, 255))} - - "
            f'"POST /api/cart/items HTTP/1.1" {502 if r.random() < 0.8 else 200} 157 "-" '
            f'"Mozilla/5.0" rt=0.0{int(r.integers(1, 9))} upstream=cart-svc:8080'
        ),
        since_ago=onset - 1,
        gap_s=(10, 30),
    )
    w.every(
        "edge-nginx",
        "info",
        lambda r: (
            f"10.1.{int(r.integers(0, 255))}.{int(r.integers(1, 255))} - - "
            f'"GET /api/catalog/{int(r.integers(100, 999))} HTTP/1.1" 200 5120 "-" '
            f'"Mozilla/5.0" rt=0.0{int(r.integers(1, 9))} upstream=catalog-svc:8080'
        ),
        since_ago=240,
        gap_s=(40, 90),
    )
    w.every(
        "recs-svc",
        "warn",
        lambda r: f"GC pause {int(r.integers(200, 600))}ms (G1 Evacuation Pause)",
        since_ago=180,
        gap_s=(300, 600),
    )
    return w


def write_heldout_sql_style_worlds() -> None:
    """Rewrite tenancy and shopfront."""
    tenancy().write(
        description="An invoicing platform (invoice-api, billing-batch, email-relay) labelled by "
        "service_name: billing-batch's single huge transaction blocks invoice updates from 02:09.",
        scenarios=_TENANCY_SCENARIOS,
        sql={"billingdb.sql": _tenancy_sql()},
    )
    shopfront().write(
        description="A shop (edge-nginx, cart-svc, catalog-svc, recs-svc) labelled by container: "
        "cart-svc 4.18.0 rolled out at 18:58 throws NullPointerException on promo items.",
        scenarios=_SHOPFRONT_SCENARIOS,
    )


if __name__ == "__main__":
    write_heldout_sql_style_worlds()
