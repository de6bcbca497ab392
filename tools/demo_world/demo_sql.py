"""The demo world's `orders` datasource: orders and a snapshot of the database sessions."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

_SCHEMA = """\
-- The orders database of the demo shop, as seen at the world's frozen time.
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  order_ref VARCHAR(16) NOT NULL,
  customer_id INTEGER NOT NULL,
  status VARCHAR(24) NOT NULL,
  amount_cents INTEGER NOT NULL,
  currency VARCHAR(3) NOT NULL,
  created_at VARCHAR(24) NOT NULL,
  updated_at VARCHAR(24) NOT NULL
);

-- A snapshot of pg_stat_activity taken at the world's frozen time.
CREATE TABLE pg_stat_activity_snapshot (
  pid INTEGER PRIMARY KEY,
  datname VARCHAR(32) NOT NULL,
  usename VARCHAR(32) NOT NULL,
  application_name VARCHAR(64) NOT NULL,
  client_addr VARCHAR(45) NOT NULL,
  backend_start VARCHAR(24) NOT NULL,
  xact_start VARCHAR(24),
  state_change VARCHAR(24) NOT NULL,
  state VARCHAR(32) NOT NULL,
  wait_event_type VARCHAR(32),
  wait_event VARCHAR(64),
  query VARCHAR(400) NOT NULL
);
"""

_PAYMENT_UPDATE = "UPDATE payments SET status = 'AUTHORIZING', updated_at = now() WHERE id = $1"
_PAYMENT_LOCKED = "SELECT id, status FROM payments WHERE order_id = $1 FOR UPDATE"
_REPORT_QUERY = (
    "SELECT date_trunc('hour', created_at), sum(amount_cents) FROM orders "
    "WHERE created_at >= $1 GROUP BY 1 ORDER BY 1"
)


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _quote(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _insert(table: str, columns: list[str], rows: list[list[object]]) -> str:
    values = ",\n".join("  (" + ", ".join(_quote(v) for v in row) + ")" for row in rows)
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES\n{values};\n"


def _orders(rng: np.random.Generator, now: datetime) -> list[list[object]]:
    incident = now - timedelta(minutes=35)
    rows: list[list[object]] = []
    created = now - timedelta(hours=6)
    order = 45100
    while created < now:
        order += 1
        if created < incident:
            status = "SHIPPED" if created < now - timedelta(hours=3) else "PAID"
            updated = created + timedelta(seconds=int(rng.integers(2, 40)))
        else:
            status = "PAYMENT_FAILED" if rng.random() < 0.45 else "PAYMENT_PENDING"
            updated = created + timedelta(seconds=30)
        amount = int(rng.integers(900, 45000))
        customer = int(rng.integers(1000, 9999))
        rows.append([order, f"ord-{order}", customer, status, amount, "EUR", _ts(created), _ts(updated)])
        created += timedelta(seconds=int(rng.uniform(90, 300 if created < incident else 120)))
    return rows


def _session(
    pid: int, app: str, user: str, addr: str, state: str, query: str, **times: object
) -> list[object]:
    return [
        pid,
        "orders",
        user,
        app,
        addr,
        times["backend"],
        times.get("xact"),
        times["change"],
        state,
        times.get("wait_type"),
        times.get("wait"),
        query,
    ]


def _sessions(rng: np.random.Generator, now: datetime) -> list[list[object]]:
    incident = now - timedelta(minutes=35)
    deploy = _ts(now - timedelta(minutes=38))
    rows: list[list[object]] = []
    pid = 21400
    for i in range(58):  # payment v2.4.1 leaves its transactions open
        pid += int(rng.integers(1, 9))
        xact = incident + timedelta(seconds=int(rng.integers(0, 600)))
        addr = f"10.42.3.{11 + i % 3}"
        rows.append(
            _session(
                pid,
                "payment",
                "payment_svc",
                addr,
                "idle in transaction",
                _PAYMENT_UPDATE,
                backend=deploy,
                xact=_ts(xact),
                change=_ts(xact + timedelta(seconds=1)),
                wait_type="Client",
                wait="ClientRead",
            )
        )
    for i in range(2):
        pid += int(rng.integers(1, 9))
        xact = now - timedelta(seconds=int(rng.integers(5, 30)))
        rows.append(
            _session(
                pid,
                "payment",
                "payment_svc",
                f"10.42.3.{11 + i}",
                "active",
                _PAYMENT_LOCKED,
                backend=deploy,
                xact=_ts(xact),
                change=_ts(xact),
                wait_type="Lock",
                wait="transactionid",
            )
        )
    for app, user, subnet, count in (
        ("checkout", "checkout_svc", 4, 7),
        ("inventory", "inventory_svc", 5, 6),
    ):
        for i in range(count):
            pid += int(rng.integers(1, 9))
            change = now - timedelta(seconds=int(rng.integers(1, 90)))
            rows.append(
                _session(
                    pid,
                    app,
                    user,
                    f"10.42.{subnet}.{20 + i % 2}",
                    "idle",
                    "COMMIT",
                    backend=_ts(now - timedelta(hours=30)),
                    change=_ts(change),
                )
            )
    pid += 3
    rows.append(
        _session(
            pid,
            "report-batch",
            "reporting_ro",
            "10.42.9.7",
            "active",
            _REPORT_QUERY,
            backend=_ts(now - timedelta(hours=8)),
            xact=_ts(now - timedelta(minutes=4)),
            change=_ts(now - timedelta(minutes=4)),
            wait_type="IO",
            wait="DataFileRead",
        )
    )
    return rows


def orders_sql(rng: np.random.Generator, now: datetime) -> str:
    """The whole script: schema, then orders, then the session snapshot."""
    order_columns = [
        "id",
        "order_ref",
        "customer_id",
        "status",
        "amount_cents",
        "currency",
        "created_at",
        "updated_at",
    ]
    session_columns = [
        "pid",
        "datname",
        "usename",
        "application_name",
        "client_addr",
        "backend_start",
        "xact_start",
        "state_change",
        "state",
        "wait_event_type",
        "wait_event",
        "query",
    ]
    return "\n".join(
        [
            _SCHEMA,
            _insert("orders", order_columns, _orders(rng, now)),
            _insert("pg_stat_activity_snapshot", session_columns, _sessions(rng, now)),
        ]
    )
