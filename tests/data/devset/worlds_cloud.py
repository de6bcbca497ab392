"""Development-set worlds of a cloud-managed database: CloudWatch metric names and dimensions, the
vendor's event stream as log lines (failover, parameter groups, storage), PostgreSQL engine logs."""

from __future__ import annotations

from tests.data.devset.devset_writer import DevWorld, Values, pick

GIB = 1024**3
_APP_OK = (
    "GET /api/v2/readings status=200 dur={ms}ms req={rid}",
    "POST /api/v2/readings status=201 dur={ms}ms req={rid}",
)


def _rds(w: DevWorld, instance: str, *, conns: float, cpu: float, free_gib: float, **extra: Values) -> None:
    """The CloudWatch AWS/RDS metrics of one instance at their normal levels, overridable by `extra`."""
    dims = {"DBInstanceIdentifier": instance}
    normal: dict[str, Values] = {
        "CPUUtilization": w.level(cpu, jitter=0.12, wave=0.15),
        "DatabaseConnections": w.level(conns, jitter=0.06, wave=0.1),
        "FreeStorageSpace": w.level(free_gib * GIB, jitter=0.0005),
        "FreeableMemory": w.level(5.1 * GIB, jitter=0.01),
        "WriteLatency": w.level(0.0021, jitter=0.2),
        "ReadLatency": w.level(0.0009, jitter=0.2),
        "WriteIOPS": w.level(410, jitter=0.15, wave=0.1),
    }
    for metric, values in (normal | extra).items():
        w.add(metric, dims, values, digits=6 if "Latency" in metric else 2)


def _event(w: DevWorld, minutes_ago: float, source: str, message: str) -> None:
    w.log(minutes_ago, source, "info", message, source_type="db-instance", event_source="rds-events")


def tidewater_replica_lag() -> DevWorld:
    w = DevWorld(
        "tidewater-replica-lag",
        "2027-03-14T11:58:00Z",
        2201,
        "Tide-gauge platform on a managed PostgreSQL "
        "primary and read replica; the replica falls behind at 11:18.",
    )
    lag = w.pin_last(w.climb(w.level(0.4, jitter=0.3), since=40, to=912), 912.0)
    _rds(w, "tidewater-obs-primary", conns=64, cpu=31, free_gib=380)
    _rds(w, "tidewater-obs-replica-1", conns=22, cpu=18, free_gib=380, ReplicaLag=lag)
    w.alert(
        "tidewater-obs-replica-1-ReplicaLag-ALARM",
        {"DBInstanceIdentifier": "tidewater-obs-replica-1", "severity": "critical"},
        30,
        description="Threshold Crossed: 1 datapoint [611.3] was greater than the threshold (300.0).",
    )
    w.chatter("gauge-portal", "info", pick(_APP_OK), since=180, every=1.5)
    w.chatter(
        "gauge-portal",
        "warn",
        pick(("stale observation window: newest reading is {ms}0s old for station group req={rid}",)),
        since=32,
        every=2,
    )
    w.chatter(
        "tidewater-obs-replica-1",
        "info",
        pick(("LOG:  duration: {ms}.4 ms  statement: SELECT station_id, level_cm FROM readings WHERE ...",)),
        since=180,
        every=6,
        event_source="postgresql-log",
    )
    w.log(
        41,
        "tidewater-obs-primary",
        "info",
        'LOG:  automatic vacuum of table "gauges.public.readings": index scans: 1',
        event_source="postgresql-log",
    )
    w.ask(
        "tidewater-stale-readings",
        "The tide gauge portal shows readings that are 15 minutes old. What is going on?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="tidewater-obs-replica-1",
        category="replication",
        data_contains=["ReplicaLag"],
    )
    w.ask(
        "tidewater-lag-value",
        "What is the value of ReplicaLag for tidewater-obs-replica-1 now?",
        kind="data-question",
        route="lookup",
        data_contains=["912"],
    )
    return w


def quarry_storage_full() -> DevWorld:
    w = DevWorld(
        "quarry-storage-full",
        "2027-04-02T16:20:00Z",
        2202,
        "Quarry weighbridge ledger on a managed PostgreSQL instance whose free storage runs out at 16:02.",
    )
    free = w.climb(w.level(46 * GIB, jitter=0.0004), since=170, to=0.55 * GIB, until=18)
    free = w.pin_last(w.move(free, since=18, to=0.55 * GIB, jitter=0.01), 0.58 * GIB)
    latency = w.move(w.level(0.0023, jitter=0.2), since=18, to=0.41, jitter=0.2)
    _rds(w, "quarry-ledger-db", conns=48, cpu=22, free_gib=46, FreeStorageSpace=free, WriteLatency=latency)
    _rds(w, "quarry-reports-db", conns=9, cpu=7, free_gib=212)
    w.alert(
        "quarry-ledger-db-FreeStorageSpace-ALARM",
        {"DBInstanceIdentifier": "quarry-ledger-db", "severity": "critical"},
        25,
        description="Threshold Crossed: 1 datapoint [2147483648.0] was less than the threshold "
        "(5368709120.0).",
    )
    _event(
        w,
        24,
        "quarry-ledger-db",
        "The free storage capacity for DB Instance: quarry-ledger-db is low at 1% of the provisioned "
        "storage [Provisioned Storage: 100.00 GB, Free Storage: 1.12 GB]. You may want to increase the "
        "provisioned storage.",
    )
    _event(w, 17, "quarry-ledger-db", "DB instance is in storage-full state.")
    w.chatter(
        "weighbridge-api",
        "info",
        pick(("ticket {rid} weighed gross=31.{ms}t status=stored",)),
        since=180,
        until=18,
        every=1.2,
    )
    w.chatter(
        "weighbridge-api",
        "error",
        pick(("ticket {rid} insert failed: SQLSTATE 53100 (could not write to server)",)),
        since=18,
        every=0.7,
    )
    w.chatter(
        "quarry-ledger-db",
        "error",
        pick(
            (
                'ERROR:  could not extend file "base/16401/24{ms}": wrote only 4096 of 8192 bytes '
                "at block 9{ms}",
            )
        ),
        since=18,
        every=1.5,
        event_source="postgresql-log",
    )
    w.ask(
        "quarry-tickets-failing",
        "Weighbridge tickets stopped saving about 20 minutes ago. Why?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="quarry-ledger-db",
        category="storage",
        data_contains=["FreeStorageSpace"],
    )
    w.ask(
        "quarry-free-storage",
        "Show the current FreeStorageSpace of every DB instance.",
        kind="data-question",
        route="lookup",
        data_contains=["quarry-ledger-db", "quarry-reports-db"],
    )
    return w


def kelp_connections() -> DevWorld:
    w = DevWorld(
        "kelp-connections",
        "2027-05-19T07:45:00Z",
        2203,
        "Kelp-farm harvest scheduler on a managed "
        "PostgreSQL instance that reaches its connection limit at 07:21.",
    )
    conns = w.move(w.level(140, jitter=0.05), since=30, to=395, ramp=8, jitter=0.005)
    _rds(w, "kelp-ops-db", conns=140, cpu=35, free_gib=240, DatabaseConnections=conns)
    w.alert(
        "kelp-ops-db-DatabaseConnections-ALARM",
        {"DBInstanceIdentifier": "kelp-ops-db", "severity": "high"},
        22,
        description="Threshold Crossed: 3 datapoints [396.0, 395.0, 396.0] were greater than the "
        "threshold (350.0).",
    )
    w.chatter(
        "harvest-scheduler", "info", pick(("scheduled line {rid} for boat slot {ms}",)), since=180, every=1.5
    )
    w.chatter(
        "harvest-scheduler",
        "error",
        pick(
            (
                "FATAL: remaining connection slots are reserved for non-replication superuser "
                "connections (pgx acquire req={rid})",
            )
        ),
        since=22,
        every=0.6,
    )
    w.chatter(
        "kelp-ops-db",
        "info",
        pick(("LOG:  connection authorized: user=harvest database=kelp application_name=sched-{ms}",)),
        since=40,
        until=22,
        every=0.3,
        event_source="postgresql-log",
    )
    w.ask(
        "kelp-scheduling-broken",
        "Boat slots can't be scheduled since about 07:20. What's wrong?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="kelp-ops-db",
        category="connections",
        data_contains=["DatabaseConnections"],
    )
    return w


def lumen_failover() -> DevWorld:
    w = DevWorld(
        "lumen-failover",
        "2027-06-23T22:40:00Z",
        2204,
        "Street-lighting control on a Multi-AZ managed "
        "database; a failover at 22:18 leaves the app writing to the old writer.",
    )
    conns_a = w.move(w.level(88, jitter=0.05), since=22, to=31, ramp=1)
    conns_b = w.move(w.level(4, jitter=0.2), since=22, to=57, ramp=2)
    _rds(w, "lumen-grid-a", conns=88, cpu=28, free_gib=150, DatabaseConnections=conns_a)
    _rds(w, "lumen-grid-b", conns=4, cpu=6, free_gib=150, DatabaseConnections=conns_b)
    for minutes, text in (
        (23, "Started cross AZ failover to DB instance: lumen-grid-b"),
        (22, "Multi-AZ instance failover started."),
        (21, "DB instance restarted"),
        (20, "Multi-AZ instance failover completed."),
        (20, "Completed failover to DB instance: lumen-grid-b"),
    ):
        _event(w, minutes, "lumen-grid", text)
    w.chatter(
        "fixture-control",
        "info",
        pick(("schedule {rid} applied to 48 lamps in {ms}ms",)),
        since=180,
        until=22,
        every=1,
    )
    w.chatter(
        "fixture-control",
        "error",
        pick(("schedule {rid} update failed: ERROR: cannot execute UPDATE in a read-only transaction",)),
        since=20,
        every=0.5,
    )
    w.alert(
        "FixtureControlWriteErrors",
        {"service": "fixture-control", "severity": "critical"},
        17,
        summary="fixture-control write error ratio above 20% for 5m",
    )
    w.ask(
        "lumen-updates-failing",
        "Lamp schedule updates have been failing for 20 minutes. Why?",
        kind="event-driven",
        verdict="incident",
        root_cause_service="lumen-grid",
        category="failover",
        data_contains=["failover"],
    )
    return w


def ferry_parameter_change() -> DevWorld:
    w = DevWorld(
        "ferry-parameter-change",
        "2027-07-08T09:30:00Z",
        2205,
        "Ferry berth booking on a managed PostgreSQL "
        "instance; a parameter-group change lowers max_connections at 08:55.",
    )
    conns = w.move(w.level(270, jitter=0.06, wave=0.1), since=35, to=0, ramp=1, until=34)
    conns = w.move(conns, since=33, to=117, ramp=3, jitter=0.01)
    _rds(w, "ferry-booking-db", conns=270, cpu=41, free_gib=300, DatabaseConnections=conns)
    _event(
        w,
        37,
        "ferry-booking-db",
        "Updated parameter max_connections to 120 in DB parameter group ferry-pg15-custom",
    )
    _event(
        w,
        35,
        "ferry-booking-db",
        "Applying modification to database instance: parameter group ferry-pg15-custom (pending-reboot)",
    )
    _event(w, 34, "ferry-booking-db", "DB instance restarted")
    w.chatter("berth-booking", "info", pick(("booking {rid} confirmed berth B{ms}",)), since=180, every=0.8)
    w.chatter(
        "berth-booking",
        "error",
        pick(("booking {rid} failed: FATAL: sorry, too many clients already",)),
        since=33,
        every=0.5,
    )
    timeouts = ("7c1e0a41", "7c1e0b97", "7c1e0d05")
    for minutes, rid in zip((52, 31, 12), timeouts, strict=True):
        w.log(minutes, "berth-booking", "warn", f"pier-gate call timeout after 3000ms req={rid}")
    w.log(40, "berth-booking", "info", "pier-gate call ok after 212ms req=7c1e0f33")
    w.alert(
        "BerthBookingErrorBudgetBurn",
        {"service": "berth-booking", "severity": "page"},
        28,
        summary="berth-booking 5xx ratio 31% over 10m",
    )
    w.ask(
        "ferry-bookings-failing",
        "Half of berth bookings fail since this morning's maintenance. What happened?",
        kind="event-driven",
        verdict="incident",
        root_cause_service="ferry-booking-db",
        category="configuration",
        data_contains=["max_connections"],
    )
    w.ask(
        "ferry-find-timeout",
        "Find 'timeout' in the berth-booking logs.",
        kind="data-question",
        route="lookup",
        data_contains=list(timeouts),
        data_none=["7c1e0f33"],
    )
    return w


def auk_recovered() -> DevWorld:
    w = DevWorld(
        "auk-recovered",
        "2027-08-11T13:30:00Z",
        2206,
        "Seabird survey archive; free storage ran low at 12:10, "
        "storage autoscaling extended it at 12:29 and the alarm resolved.",
    )
    free = w.climb(w.level(30 * GIB, jitter=0.0005), since=170, to=3.1 * GIB, until=80)
    free = w.move(free, since=79, to=3.0 * GIB, ramp=1, jitter=0.01, until=62)
    free = w.move(free, since=61, to=103 * GIB, ramp=2, jitter=0.0005)
    _rds(w, "auk-archive-db", conns=35, cpu=19, free_gib=30, FreeStorageSpace=free)
    w.alert(
        "auk-archive-db-FreeStorageSpace-ALARM",
        {"DBInstanceIdentifier": "auk-archive-db", "severity": "warning"},
        80,
        ended=58,
        description="Threshold Crossed: FreeStorageSpace below 5 GiB.",
    )
    _event(w, 61, "auk-archive-db", "Applying autoscaling-initiated modification to allocated storage.")
    _event(
        w,
        58,
        "auk-archive-db",
        "Finished applying autoscaling-initiated modification to allocated storage: 100 GiB to 200 GiB.",
    )
    w.chatter(
        "colony-archive", "info", pick(("survey batch {rid} archived ({ms} records)",)), since=180, every=2
    )
    w.ask(
        "auk-storage-still",
        "Was there a storage problem on auk-archive-db? Is it still going on?",
        kind="healthy-noise",
        verdict="healthy",
        keywords_none=["root cause:"],
    )
    return w


def marten_flapping() -> DevWorld:
    w = DevWorld(
        "marten-flapping",
        "2027-09-02T15:10:00Z",
        2207,
        "Fur-trade museum catalogue; the connections alarm "
        "flaps around its threshold all afternoon while the database is fine.",
    )
    _rds(
        w,
        "marten-db",
        conns=176,
        cpu=24,
        free_gib=190,
        DatabaseConnections=w.level(176, jitter=0.035, wave=0.05, period=37),
    )
    for start, end in ((171, 168), (133, 131), (102, 98), (64, 61), (27, 25)):
        w.alert(
            "marten-db-DatabaseConnections-ALARM",
            {"DBInstanceIdentifier": "marten-db", "severity": "warning"},
            start,
            ended=end,
            description="Threshold Crossed: 1 datapoint [181.0] was greater than the threshold (180.0).",
        )
    w.chatter("catalogue-web", "info", pick(_APP_OK), since=180, every=1)
    w.ask(
        "marten-flapping-pages",
        "We keep getting DatabaseConnections pages for marten-db. Is anything actually wrong?",
        kind="healthy-noise",
        verdict="healthy",
    )
    return w


WORLDS = (
    tidewater_replica_lag,
    quarry_storage_full,
    kelp_connections,
    lumen_failover,
    ferry_parameter_change,
    auk_recovered,
    marten_flapping,
)
