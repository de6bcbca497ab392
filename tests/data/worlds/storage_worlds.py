"""Scenario worlds about storage: `ledger` (a database volume fills up) and `warehouse` (lock contention
seen through SQL). Run `python -m tests.data.worlds.generate_scenarios` to rewrite every scenario world.
"""

from __future__ import annotations

from datetime import UTC, datetime

from tests.data.worlds.world_writer import WorldWriter

_LEDGER_SCENARIOS = """\
- id: ledger-transfers-failing
  question: Why are transfers failing to post right now?
  expect:
    root_cause_service: postings-db
    category: disk_full
    keywords_all: [postings-db, No space left on device]
    keywords_none: ["root cause: reconciler"]
    evidence_sources: [alerts, metrics, logs]
# Multi-turn: the expectation is judged on the answer to the last turn.
- id: ledger-followup-disk
  question: Are any alerts firing on the ledger platform?
  turns:
    - Why is postings-db running out of disk space?
  expect:
    root_cause_service: postings-db
    category: disk_full
    keywords_all: [postings-db]
    evidence_sources: [metrics, logs]
"""

_LEDGER_RUNBOOK = """\
# Database volume full

## Symptoms
Writes fail with `No space left on device` (SQLSTATE 53100); PostgreSQL may PANIC while writing WAL.

## Triage
1. Check `node_filesystem_avail_bytes` of the data mount and `pg_wal_directory_bytes`.
2. A growing pg_wal with a failing archiver means WAL segments cannot be recycled: fix the archiver first.
3. Never delete files under pg_wal by hand.

## Mitigation
Extend the volume, or restore the archive target so the archiver catches up and WAL is recycled.
"""


def ledger() -> WorldWriter:
    """Postings-db's WAL archiver fails at 09:10; pg_wal grows until the data volume is full at 11:15."""
    w = WorldWriter("ledger", datetime(2027, 5, 18, 11, 40, tzinfo=UTC), seed=518)
    archiver_broke, full = 150, 25
    db = {"job": "postings-db", "host": "pg-ledger-1", "mountpoint": "/var/lib/postgresql"}
    size = 500e9
    wal = w.baseline(8.2e9, amplitude=0.02, noise=0.01)
    for i, ts in enumerate(w.grid):
        grown = max(0.0, (ts - w.minutes_ago(archiver_broke)) / 60) * 0.52e9
        wal[i] = min(wal[i] + grown, 8.2e9 + 62.4e9)
    used_other = w.baseline(429e9, amplitude=0.0, noise=0.0005)
    avail = [max(0.0, size - other - segment) for other, segment in zip(used_other, wal, strict=True)]
    w.add_series("node_filesystem_avail_bytes", db, avail, digits=0)
    w.add_series("node_filesystem_size_bytes", db, [size for _ in w.grid], digits=0)
    w.add_series("pg_wal_directory_bytes", {"job": "postings-db", "host": "pg-ledger-1"}, wal, digits=0)
    for pod in ("ledger-api-0", "ledger-api-1"):
        labels = {"job": "ledger-api", "host": pod}
        errors = w.shift(w.baseline(0.02, noise=0.4), minutes_ago=full, target=14.0, ramp=2)
        latency = w.shift(w.baseline(0.12, amplitude=0.15), minutes_ago=full, target=2.4, ramp=2)
        w.add_series("ledger_api_request_errors_per_second", labels, errors)
        w.add_series("ledger_api_request_latency_p99_seconds", labels, latency)
        w.add_series("ledger_api_requests_per_second", labels, w.baseline(35.0, amplitude=0.4))
    w.add_series(
        "reconciler_batch_duration_seconds", {"job": "reconciler", "host": "reconciler-0"}, w.baseline(48.0)
    )
    w.alert(
        "PostgresWalArchiverFailing",
        {"job": "postings-db", "host": "pg-ledger-1", "severity": "warning"},
        archiver_broke - 5,
        summary="WAL archiving on pg-ledger-1 has failed for 5 minutes",
    )
    w.alert(
        "FilesystemAlmostFull",
        db | {"severity": "critical"},
        45,
        summary="/var/lib/postgresql on pg-ledger-1 has less than 5% space left",
    )
    w.alert(
        "LedgerApiErrorRateHigh",
        {"job": "ledger-api", "severity": "critical"},
        full - 2,
        summary="ledger-api is failing more than 10% of transfer postings",
    )

    def transfer(rng: object) -> str:
        tx = int(w.rng.integers(16**11, 16**12))
        return f"POST /v2/transfers 201 tx=tr_{tx:x} {int(w.rng.integers(18, 90))}ms"

    def failed(rng: object) -> str:
        return (
            f"posting tx=tr_{int(w.rng.integers(16**11, 16**12)):x} failed: ERROR: could not extend file "
            f'"base/16384/{int(w.rng.integers(24000, 25000))}": No space left on device (SQLSTATE 53100)'
        )

    for pod in ("ledger-api-0", "ledger-api-1"):
        w.every("ledger-api", "info", transfer, since_ago=240, until_ago=full, gap_s=(45, 140), pod=pod)
        w.every("ledger-api", "error", failed, since_ago=full, gap_s=(20, 70), pod=pod)
    w.every(
        "postings-db",
        "warn",
        lambda _: (
            'archive command failed with exit code 1: "wal-g wal-push pg_wal/0000000100000A4F000000'
            f'{int(w.rng.integers(16, 255)):02X}": AccessDenied on bucket ledger-wal-archive'
        ),
        since_ago=archiver_broke,
        gap_s=(60, 90),
    )
    w.every(
        "postings-db",
        "error",
        lambda _: (
            f'PANIC: could not write to file "pg_wal/xlogtemp.{int(w.rng.integers(1000, 9999))}": '
            "No space left on device"
        ),
        since_ago=full,
        gap_s=(90, 240),
    )
    w.every("postings-db", "info", lambda _: "checkpoint starting: time", since_ago=240, gap_s=(300, 300))
    w.every(
        "reconciler",
        "info",
        lambda _: f"reconciled batch entries={int(w.rng.integers(800, 2400))} mismatches=0",
        since_ago=240,
        gap_s=(600, 600),
    )
    return w


_WAREHOUSE_SCENARIOS = """\
- id: warehouse-reservations-slow
  question: Why are stock reservations so slow tonight?
  expect:
    root_cause_service: inventory-recount
    category: slow_query
    keywords_all: [Lock wait timeout]
    evidence_sources: [sql, logs]
- id: warehouse-blocking-query
  question: Which transaction is blocking stock reservations in the warehouse database?
  expect:
    root_cause_service: inventory-recount
    category: slow_query
    keywords_all: [inventory-recount]
    evidence_sources: [sql]
"""

_WAREHOUSE_SQL_HEAD = """\
CREATE TABLE processlist (id INTEGER PRIMARY KEY, db_user VARCHAR(32), client_host VARCHAR(64),
  command VARCHAR(16), time_s INTEGER, state VARCHAR(64), info VARCHAR(255));
CREATE TABLE innodb_lock_waits (waiting_trx_id VARCHAR(16), waiting_thread INTEGER,
  waiting_query VARCHAR(255), wait_s INTEGER, blocking_trx_id VARCHAR(16), blocking_thread INTEGER,
  blocking_client VARCHAR(64), blocking_trx_age_s INTEGER, blocking_rows_locked INTEGER);
CREATE TABLE stock_reservations (id INTEGER PRIMARY KEY, order_ref VARCHAR(20), sku VARCHAR(20),
  quantity INTEGER, status VARCHAR(24), created_at VARCHAR(20), updated_at VARCHAR(20));
INSERT INTO processlist VALUES (48211, 'recount', 'inventory-recount-28190-x7q', 'Query', 2410,
  'updating', 'UPDATE stock_levels SET counted_qty = ?, counted_at = NOW() WHERE aisle = ?');
"""


def _warehouse_sql(w: WorldWriter) -> str:
    lines = [_WAREHOUSE_SQL_HEAD]
    for n in range(14):
        thread = 48300 + n
        sku = f"SKU-{int(w.rng.integers(100000, 999999))}"
        wait = int(w.rng.integers(3, 50))
        query = f"UPDATE stock_levels SET reserved_qty = reserved_qty + 1 WHERE sku = ''{sku}''"
        lines.append(
            f"INSERT INTO processlist VALUES ({thread}, 'stock', 'stock-service-6c9f-{n % 3}', "
            f"'Query', {wait}, 'updating', '{query}');"
        )
        lines.append(
            f"INSERT INTO innodb_lock_waits VALUES ('{48400000 + n}', {thread}, '{query}', {wait}, "
            "'48211977', 48211, 'inventory-recount-28190-x7q', 2410, 212004);"
        )
    statuses = ["RESERVED"] * 30 + ["PENDING"] * 12 + ["FAILED_LOCK_TIMEOUT"] * 18
    for n, status in enumerate(statuses):
        minute = 14 + n % 46 if status != "RESERVED" else n % 40
        hour = "02" if status == "RESERVED" else "03" if minute < 15 else "02"
        created = f"2027-08-02 {hour}:{minute % 60:02d}:{int(w.rng.integers(0, 59)):02d}"
        lines.append(
            f"INSERT INTO stock_reservations VALUES ({n + 1}, 'ORD-{int(w.rng.integers(10**6, 10**7))}', "
            f"'SKU-{int(w.rng.integers(100000, 999999))}', {int(w.rng.integers(1, 4))}, '{status}', "
            f"'{created}', '{created}');"
        )
    return "\n".join(lines) + "\n"


def warehouse() -> WorldWriter:
    """inventory-recount opens one long transaction at 02:35 and row-locks stock_levels for 40 minutes."""
    w = WorldWriter("warehouse", datetime(2027, 8, 2, 3, 15, tzinfo=UTC), seed=802)
    recount, waits = 40, 30
    db = {"application": "warehouse-db", "instance": "mariadb-0"}
    w.add_series(
        "mysql_global_status_innodb_row_lock_current_waits",
        db,
        w.shift(w.baseline(0.2, noise=0.5), minutes_ago=waits, target=44.0, ramp=4, noise=0.1),
        digits=0,
    )
    w.add_series(
        "mysql_global_status_threads_running",
        db,
        w.shift(w.baseline(5.0, noise=0.2), minutes_ago=waits, target=61.0, ramp=4),
        digits=0,
    )
    w.add_series("mysql_global_status_queries_per_second", db, w.baseline(820.0, amplitude=0.5))
    for pod in ("stock-service-6c9f-0", "stock-service-6c9f-1", "stock-service-6c9f-2"):
        labels = {"application": "stock-service", "instance": pod}
        slow = w.shift(w.baseline(0.045, amplitude=0.3), minutes_ago=waits, target=50.0, ramp=3, ceiling=50.0)
        w.add_series("stock_reservation_duration_seconds_p95", labels, slow)
    w.add_series(
        "inventory_recount_rows_updated_per_second",
        {"application": "inventory-recount", "instance": "inventory-recount-28190-x7q"},
        w.shift([0.0 for _ in w.grid], minutes_ago=recount, target=95.0, ramp=1, noise=0.1),
    )
    w.add_series(
        "picking_api_requests_per_second",
        {"application": "picking-api", "instance": "picking-api-0"},
        w.baseline(6.0),
    )
    w.alert(
        "MySQLRowLockWaitsHigh",
        db | {"severity": "critical"},
        waits - 3,
        summary="More than 20 InnoDB row lock waits on warehouse-db",
    )
    w.alert(
        "StockReservationSlow",
        {"application": "stock-service", "severity": "warning"},
        waits - 5,
        summary="stock-service p95 reservation time above 5s",
    )

    def timeout(_: object) -> str:
        return (
            f"reserve order=ORD-{int(w.rng.integers(10**6, 10**7))} "
            f"sku=SKU-{int(w.rng.integers(100000, 999999))} failed: "
            "(1205, 'Lock wait timeout exceeded; try restarting transaction')"
        )

    w.every("stock-service", "error", timeout, since_ago=waits - 1, gap_s=(25, 80))
    w.every(
        "stock-service",
        "info",
        lambda _: (
            f"reserved order=ORD-{int(w.rng.integers(10**6, 10**7))} in {int(w.rng.integers(12, 70))}ms"
        ),
        since_ago=240,
        until_ago=waits,
        gap_s=(90, 240),
    )
    start = float(w.minutes_ago(recount))
    w.log(start, "inventory-recount", "info", "recount started: zone=all aisles=40 mode=single-transaction")
    for batch in range(1, 13):
        w.log(
            start + batch * 190,
            "inventory-recount",
            "info",
            f"recount progress {batch}/40 aisles, {batch * 17667} rows updated, transaction still open",
        )
    w.every(
        "warehouse-db",
        "warn",
        lambda _: (
            "InnoDB: transaction 48211977 (inventory-recount) has been running for "
            f"{int(w.rng.integers(1200, 2400))} s, holding 212004 row locks on stock_levels"
        ),
        since_ago=waits - 5,
        gap_s=(240, 300),
    )
    w.every("picking-api", "info", lambda _: "GET /v1/picklists 200", since_ago=240, gap_s=(200, 400))
    return w


def write_storage_worlds() -> None:
    """Rewrite the ledger and warehouse worlds."""
    ledger().write(
        description="A payments ledger (ledger-api, postings-db, reconciler): the WAL archiver of "
        "postings-db fails at 09:10 UTC, pg_wal grows and fills the data volume at 11:15 UTC.",
        scenarios=_LEDGER_SCENARIOS,
        docs={"database-volume-full.md": _LEDGER_RUNBOOK},
    )
    w = warehouse()
    w.write(
        description="A warehouse (stock-service, picking-api, warehouse-db, inventory-recount): the "
        "nightly recount holds row locks in one long transaction; reservations hit lock wait timeouts.",
        scenarios=_WAREHOUSE_SCENARIOS,
        sql={"warehouse.sql": _warehouse_sql(w)},
    )
