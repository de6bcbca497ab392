"""Development-set worlds in Datadog's style (metric names with the dots made underscores, since the world
format holds Prometheus names; tags `service`, `env`, `host`, `version` as labels; logs with `status`-like
levels), plus the compositional worlds that mix styles."""

from __future__ import annotations

from tests.data.devset.devset_writer import DevWorld, pick

GIB = 1024**3
MIB = 1024**2
_PROD = {"env": "prod"}


def silt_locks() -> DevWorld:
    w = DevWorld(
        "silt-locks",
        "2027-02-24T10:30:00Z",
        2501,
        "River-silt survey ledger (Datadog agent metrics): a schema "
        "change holds an exclusive lock from 10:04 and writers queue behind it.",
    )
    db = _PROD | {"service": "silt-ledger-db", "host": "i-0a41c7d2", "db": "ledger"}
    w.add(
        "postgresql_locks",
        db | {"lock_mode": "AccessExclusiveLock"},
        w.move([0.0] * len(w.grid), since=26, to=1, ramp=1, jitter=0),
        digits=0,
    )
    w.add(
        "postgresql_locks",
        db | {"lock_mode": "RowExclusiveLock"},
        w.move(w.level(3, jitter=0.4), since=26, to=88, ramp=4),
        digits=0,
    )
    w.add("postgresql_connections", db, w.move(w.level(42, jitter=0.05), since=26, to=131, ramp=6), digits=0)
    w.add(
        "postgresql_percent_usage_connections",
        db,
        w.move(w.level(0.21, jitter=0.05), since=26, to=0.66, ramp=6),
        digits=3,
    )
    w.add("system_cpu_user", _PROD | {"host": "i-0a41c7d2"}, w.level(12, jitter=0.15), digits=2)
    api = _PROD | {"service": "sediment-api", "version": "2.8.1"}
    w.add(
        "trace_http_request_duration",
        api | {"resource_name": "post_/cores"},
        w.move(w.level(0.06, jitter=0.15), since=25, to=9.4, ramp=3),
        digits=3,
    )
    w.log(
        27,
        "silt-ledger-db",
        "info",
        "LOG:  statement: ALTER TABLE core_samples ADD COLUMN grain_class text DEFAULT 'unknown' NOT NULL",
        **_PROD,
    )
    pids = ("31877", "31902", "32015")
    for minute, pid in zip((24, 19, 9), pids, strict=True):
        w.log(
            minute,
            "silt-ledger-db",
            "error",
            f"ERROR:  deadlock detected DETAIL: Process {pid} waits for RowExclusiveLock on "
            "relation 16644 of database 16401; blocked by process 30112.",
            **_PROD,
        )
    w.chatter(
        "silt-ledger-db",
        "warn",
        pick(
            (
                "LOG:  process 33{ms} still waiting for RowExclusiveLock on relation 16644 of database "
                "16401 after 1000.0{ms} ms",
            )
        ),
        since=25,
        every=0.4,
        tags=_PROD,
    )
    w.chatter(
        "sediment-api",
        "info",
        pick(("POST /cores 201 {ms}ms trace_id={rid}",)),
        since=180,
        until=25,
        every=0.5,
        tags=_PROD,
    )
    w.chatter(
        "sediment-api",
        "error",
        pick(("POST /cores 504 after 10000ms trace_id={rid}: statement timeout",)),
        since=24,
        every=0.6,
        tags=_PROD,
    )
    w.alert(
        "[Datadog] Sediment API p95 latency is high",
        {"service": "sediment-api", "env": "prod", "priority": "P2"},
        20,
        message="trace.http.request.duration p95 > 2s over the last 10m on service:sediment-api env:prod",
    )
    w.ask(
        "silt-core-uploads-timeout",
        "Core sample uploads in sediment-api time out. Why?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="silt-ledger-db",
        category="locks",
        data_contains=["lock"],
    )
    w.ask(
        "silt-grep-deadlock",
        "grep 'deadlock detected' in the silt-ledger-db logs",
        kind="data-question",
        route="lookup",
        data_contains=list(pids),
        data_none=["still waiting"],
    )
    return w


def godwit_spike_in_range() -> DevWorld:
    w = DevWorld(
        "godwit-spike-in-range",
        "2027-03-18T10:20:00Z",
        2502,
        "Shorebird-count web hosts (Datadog): CPU spikes to "
        "the 60-75% band every half hour as the tally batch runs; nothing is wrong.",
    )
    for host in ("godwit-web-1", "godwit-web-2"):
        cpu = w.level(31, jitter=0.06)
        for start in range(158, 0, -30):
            cpu = w.move(cpu, since=start, to=68, ramp=1, jitter=0.07, until=start - 4)
        w.add("system_cpu_user", _PROD | {"host": host, "service": "godwit-web"}, cpu, digits=2)
        w.add("system_load_1", _PROD | {"host": host}, w.level(1.4, jitter=0.2, wave=0.2), digits=2)
        w.add(
            "trace_http_request_duration",
            _PROD | {"host": host, "service": "godwit-web", "resource_name": "get_/tallies"},
            w.level(0.085, jitter=0.12),
            digits=3,
        )
    w.chatter(
        "godwit-web",
        "info",
        pick(("GET /tallies?site=s{ms} 200 {ms}ms", "tally batch {rid} merged {ms} counts")),
        since=180,
        every=0.5,
        tags=_PROD,
    )
    w.chatter(
        "godwit-web",
        "warn",
        pick(("tally batch {rid} took {ms}s, longer than usual",)),
        since=180,
        every=45,
        tags=_PROD,
    )
    w.ask(
        "godwit-cpu-jump",
        "CPU jumped to 70% on godwit-web-2 at 10:12, is something wrong?",
        kind="healthy-noise",
        verdict="healthy",
        keywords_none=["root cause:"],
    )
    w.ask(
        "godwit-find-segfault",
        "Find 'segfault' in the godwit-web logs.",
        kind="data-question",
        route="lookup",
        data_contains=["nothing matched"],
        data_none=["tally batch"],
    )
    return w


def estuary_two_causes() -> DevWorld:
    w = DevWorld(
        "estuary-two-causes",
        "2027-04-08T15:45:00Z",
        2503,
        "Estuary permits platform: the invoice worker is "
        "OOMKilled from 15:05 while, unrelated, the map-tile database runs out of storage from 15:15.",
    )
    ids = {"namespace": "estuary", "pod": "invoice-worker-6f8b-2xk9q", "container": "invoice-worker"}
    mem = w.climb(w.level(300 * MIB, jitter=0.02), since=60, to=1020 * MIB, until=40)
    mem = w.move(mem, since=40, to=990 * MIB, ramp=1, jitter=0.03)
    w.add("container_memory_working_set_bytes", ids, mem, digits=0)
    w.add(
        "kube_pod_container_status_restarts_total",
        {"job": "kube-state-metrics"} | ids,
        [float(sum(1 for m in (38, 27, 16, 5) if (w.grid[-1] - ts) / 60 <= m)) for ts in w.grid],
        digits=0,
    )
    for minute in (38, 27, 16, 5):
        w.log(
            minute,
            "invoice-worker",
            "warning",
            "Memory cgroup out of memory: Killed process 41 (java)",
            namespace="estuary",
            source="kubernetes-event",
            reason="OOMKilling",
        )
    w.chatter(
        "invoice-worker",
        "info",
        pick(("invoice {rid} rendered ({ms} pages)",)),
        since=180,
        every=1,
        namespace="estuary",
    )
    free = w.climb(w.level(18 * GIB, jitter=0.0005), since=120, to=0.4 * GIB, until=30)
    free = w.move(free, since=30, to=0.3 * GIB, ramp=1, jitter=0.02)
    w.add("FreeStorageSpace", {"DBInstanceIdentifier": "estuary-tiles-db"}, free, digits=0)
    w.add(
        "WriteLatency",
        {"DBInstanceIdentifier": "estuary-tiles-db"},
        w.move(w.level(0.002, jitter=0.2), since=30, to=0.35),
        digits=6,
    )
    w.log(29, "estuary-tiles-db", "info", "DB instance is in storage-full state.", event_source="rds-events")
    w.chatter(
        "tile-renderer",
        "error",
        pick(("tile z{ms}/x/y upsert failed: could not extend file: No space left on device",)),
        since=29,
        every=0.5,
        namespace="estuary",
    )
    w.alert(
        "KubePodCrashLooping",
        {
            "namespace": "estuary",
            "pod": "invoice-worker-6f8b-2xk9q",
            "container": "invoice-worker",
            "severity": "warning",
        },
        30,
        description="Pod estuary/invoice-worker-6f8b-2xk9q is in waiting state (CrashLoopBackOff).",
    )
    w.alert(
        "estuary-tiles-db-FreeStorageSpace-ALARM",
        {"DBInstanceIdentifier": "estuary-tiles-db", "severity": "critical"},
        28,
        description="Threshold Crossed: FreeStorageSpace below 1 GiB.",
    )
    w.ask(
        "estuary-invoices-and-tiles",
        "Permit invoices aren't generated and the map tiles stopped updating. What's wrong?",
        kind="compositional",
        verdict="incident",
        data_contains=["invoice-worker", "estuary-tiles-db"],
        keywords_none=["ruled out: invoice-worker", "ruled out: estuary-tiles-db"],
    )
    return w


def dunlin_pool_and_disk() -> DevWorld:
    w = DevWorld(
        "dunlin-pool-and-disk",
        "2027-05-13T11:15:00Z",
        2504,
        "Mudflat tour bookings: a config change shrinks the "
        "booking service's Hikari pool at 10:42 while the database host's disk saturates from 10:45.",
    )
    app = {"application": "tour-booking", "instance": "tour-booking-2", "pool": "bookings"}
    w.add(
        "hikaricp_connections_max",
        app,
        w.move([40.0] * len(w.grid), since=33, to=8, ramp=1, jitter=0),
        digits=0,
    )
    w.add(
        "hikaricp_connections_active",
        app,
        w.move(w.level(14, jitter=0.15), since=33, to=8, ramp=1, jitter=0),
        digits=0,
    )
    w.add(
        "hikaricp_connections_pending",
        app,
        w.move(w.level(0.05, jitter=1), since=32, to=57, ramp=4),
        digits=0,
    )
    w.add(
        "hikaricp_connections_acquire_seconds_max",
        app,
        w.move(w.level(0.004, jitter=0.3), since=32, to=21, ramp=4),
        digits=3,
    )
    busy = w.move(w.level(0.22, jitter=0.2), since=30, to=0.99, ramp=3, jitter=0.005)
    w.add(
        "node_disk_io_time_seconds_total",
        {"job": "node", "instance": "dunlin-pg-host", "device": "sdb"},
        w.cumulative([60 * b for b in busy]),
        digits=2,
    )
    w.log(
        34,
        "tour-booking",
        "info",
        "Config refresh: spring.datasource.hikari.maximum-pool-size changed from 40 to 8 "
        "(source: config-server, label=main)",
    )
    w.chatter(
        "tour-booking", "info", pick(("booking {rid} confirmed for tide slot {ms}",)), since=180, every=0.6
    )
    w.chatter(
        "tour-booking",
        "error",
        pick(
            (
                "booking {rid} failed: SQLTransientConnectionException: bookings - Connection is not "
                "available, request timed out after 20000ms.",
            )
        ),
        since=31,
        every=0.5,
    )
    w.chatter(
        "dunlin-pg-host",
        "warn",
        pick(("iostat sdb: w_await={ms}0.0ms aqu-sz=3{ms}.1 %util=99.{ms}",)),
        since=29,
        every=2,
        source="iostat",
    )
    w.alert(
        "TourBookingErrors",
        {"application": "tour-booking", "severity": "critical"},
        25,
        summary="booking failures above 25%",
    )
    w.alert(
        "NodeDiskIOSaturation",
        {"instance": "dunlin-pg-host", "device": "sdb", "severity": "warning"},
        22,
        description="Disk IO queue is high on sdb at dunlin-pg-host.",
    )
    w.ask(
        "dunlin-bookings-failing",
        "Tour bookings fail since 10:45. What caused it?",
        kind="compositional",
        verdict="incident",
        data_contains=["maximum-pool-size", "dunlin-pg-host"],
        keywords_none=["ruled out: dunlin-pg-host", "ruled out: tour-booking"],
    )
    return w


def ibis_blind() -> DevWorld:
    w = DevWorld(
        "ibis-blind",
        "2027-06-19T09:00:00Z",
        2505,
        "Bird-ringing registry whose metrics and logs backends are not "
        "connected: only an empty alert list answers, so no verdict but inconclusive is honest.",
    )
    w.absent |= {"metrics.json", "logs.jsonl"}
    w.ask(
        "ibis-is-healthy",
        "Is the ibis ringing registry healthy right now?",
        kind="missing-sources",
        verdict="inconclusive",
        unavailable_sources=["metrics", "logs"],
    )
    return w


WORLDS = (silt_locks, godwit_spike_in_range, estuary_two_causes, dunlin_pool_and_disk, ibis_blind)
