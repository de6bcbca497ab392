"""Development-set worlds read through exporters: postgres_exporter, node_exporter and Micrometer (JVM,
HikariCP)."""

from __future__ import annotations

from tests.data.devset.devset_writer import DevWorld, pick

GIB = 1024**3
MIB = 1024**2


def sorrel_checkpoint_storm() -> DevWorld:
    w = DevWorld(
        "sorrel-checkpoint-storm",
        "2027-01-26T03:35:00Z",
        2401,
        "Seed-bank catalogue on self-run PostgreSQL: a "
        "bulk import at 02:58 forces a checkpoint every few seconds and writes stall.",
    )
    pg = {"job": "postgres", "instance": "sorrel-pg-0", "server": "sorrel-pg-0:5432"}
    req = w.move(w.level(0.02, jitter=0.5), since=37, to=7.5, ramp=2)
    w.add("pg_stat_bgwriter_checkpoints_req_total", pg, w.cumulative(req), digits=0)
    w.add("pg_stat_bgwriter_checkpoints_timed_total", pg, w.cumulative(w.level(0.2, jitter=0.1)), digits=0)
    write_ms = w.move(w.level(900, jitter=0.3), since=37, to=52000, ramp=3)
    w.add("pg_stat_bgwriter_checkpoint_write_time_total", pg, w.cumulative(write_ms), digits=0)
    w.add(
        "pg_stat_bgwriter_buffers_backend_total",
        pg,
        w.cumulative(w.move(w.level(40, jitter=0.3), since=36, to=9100)),
        digits=0,
    )
    w.add("pg_stat_database_numbackends", pg | {"datname": "seedbank"}, w.level(34, jitter=0.08), digits=0)
    w.add(
        "node_cpu_seconds_total",
        {"job": "node", "instance": "sorrel-pg-0", "mode": "user", "cpu": "0"},
        w.cumulative(w.move(w.level(14, jitter=0.1), since=37, to=23)),
        digits=2,
    )
    p99 = w.move(w.level(0.045, jitter=0.15), since=35, to=3.8, ramp=3, jitter=0.15)
    w.add(
        "http_server_requests_seconds",
        {"application": "seedbank-api", "uri": "/accessions/{id}", "quantile": "0.99"},
        p99,
        digits=4,
    )
    w.log(
        38,
        "lot-importer",
        "info",
        "starting COPY seed_lots FROM STDIN (source=genebank-dump-2027-01.csv, 41,882,113 rows)",
        namespace="batch",
    )
    w.chatter(
        "lot-importer",
        "info",
        pick(("copied {ms}0,000 rows into seed_lots",)),
        since=37,
        every=3,
        namespace="batch",
    )
    w.chatter(
        "sorrel-pg-0",
        "info",
        pick(
            (
                "LOG:  checkpoint starting: wal",
                "LOG:  checkpoint complete: wrote 1{ms}03 buffers (9.8%); write=4.{ms} s, sync=1.2 s",
            )
        ),
        since=36,
        every=0.25,
        event_source="postgresql-log",
    )
    w.chatter(
        "sorrel-pg-0",
        "info",
        pick(("LOG:  checkpoints are occurring too frequently ({ms} seconds apart)",)),
        since=36,
        every=1.5,
        event_source="postgresql-log",
    )
    w.chatter(
        "sorrel-pg-0",
        "info",
        pick(("LOG:  checkpoint starting: time",)),
        since=180,
        until=40,
        every=5,
        event_source="postgresql-log",
    )
    w.chatter("seedbank-api", "info", pick(("GET /accessions/{ms} 200 {ms}ms",)), since=180, every=0.7)
    w.chatter(
        "seedbank-api",
        "warn",
        pick(("slow request GET /accessions/{ms} took 3{ms}ms (db wait)",)),
        since=34,
        every=0.8,
    )
    w.alert(
        "PostgresCheckpointsTooFrequent",
        {"instance": "sorrel-pg-0", "severity": "warning"},
        30,
        summary="More than 2 requested checkpoints per minute on sorrel-pg-0",
    )
    w.alert(
        "SeedbankApiLatencyHigh",
        {"application": "seedbank-api", "severity": "critical"},
        28,
        summary="p99 latency of seedbank-api above 2s",
    )
    w.ask(
        "sorrel-api-slow",
        "The seed bank API has been very slow for half an hour. What's the cause?",
        kind="event-driven",
        verdict="incident",
        root_cause_service="sorrel-pg-0",
        category="checkpoint",
        data_contains=["checkpoint"],
    )
    return w


def basalt_disk_io() -> DevWorld:
    w = DevWorld(
        "basalt-disk-io",
        "2027-02-09T19:10:00Z",
        2402,
        "Core-sample indexing host: the data disk saturates from "
        "18:41; a decommissioned node's exporter is still scraped and down.",
    )
    node = {"job": "node", "instance": "basalt-ingest-03", "device": "nvme1n1"}
    busy = w.move(w.level(0.18, jitter=0.2), since=29, to=0.995, ramp=2, jitter=0.004)
    w.add("node_disk_io_time_seconds_total", node, w.cumulative([60 * b for b in busy]), digits=2)
    w.add(
        "node_disk_io_time_weighted_seconds_total",
        node,
        w.cumulative(w.move(w.level(9, jitter=0.2), since=29, to=1900, ramp=2)),
        digits=2,
    )
    w.add("node_disk_writes_completed_total", node, w.cumulative(w.level(52000, jitter=0.1)), digits=0)
    w.add(
        "node_filesystem_avail_bytes",
        {"job": "node", "instance": "basalt-ingest-03", "mountpoint": "/data"},
        w.level(1.1e12, jitter=0.001),
        digits=0,
    )
    w.add(
        "node_load1",
        {"job": "node", "instance": "basalt-ingest-03"},
        w.move(w.level(2.1, jitter=0.15), since=28, to=17),
        digits=2,
    )
    for instance, value in (
        ("basalt-ingest-01", 1.0),
        ("basalt-ingest-03", 1.0),
        ("basalt-ingest-07", 0.0),
        ("basalt-query-1", 1.0),
    ):
        w.add("up", {"job": "node", "instance": instance}, [value] * len(w.grid), digits=0)
    w.add(
        "up",
        {"job": "smartctl", "instance": "basalt-ingest-03"},
        w.move([1.0] * len(w.grid), since=150, to=0, ramp=1, jitter=0),
        digits=0,
    )
    w.chatter("core-sample-indexer", "info", pick(("indexed core {rid} depth={ms}m",)), since=180, every=0.6)
    w.chatter(
        "core-sample-indexer",
        "warn",
        pick(("fsync of segment {rid} took 4{ms}ms", "write deadline exceeded for segment {rid}")),
        since=28,
        every=0.4,
    )
    w.alert(
        "NodeDiskIOSaturation",
        {"instance": "basalt-ingest-03", "device": "nvme1n1", "severity": "warning"},
        20,
        description="Disk IO queue (aqu-sq) is high on nvme1n1 at basalt-ingest-03, has been above 10 "
        "for the last 15 minutes.",
    )
    w.alert(
        "TargetDown",
        {"job": "node", "severity": "warning"},
        170,
        message="25% of the node/node targets are down.",
    )
    w.ask(
        "basalt-indexing-stalls",
        "Core sample indexing crawls since about 18:40. Why?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="basalt-ingest-03",
        category="disk-io",
        keywords_none=["root cause: basalt-ingest-07"],
    )
    w.ask(
        "basalt-targets-down",
        "Which targets are down?",
        kind="data-question",
        route="lookup",
        data_contains=["basalt-ingest-07", "smartctl"],
        data_none=["basalt-query-1"],
    )
    return w


def gannet_gc_thrash() -> DevWorld:
    w = DevWorld(
        "gannet-gc-thrash",
        "2027-03-03T13:40:00Z",
        2403,
        "Seabird nest census (Spring Boot, Micrometer): the old "
        "generation fills from 12:30 and the JVM spends its time in GC.",
    )
    app = {"application": "nest-census", "instance": "nest-census-1"}
    old = w.climb(w.level(600 * MIB, jitter=0.02), since=70, to=2000 * MIB, until=15)
    w.add("jvm_memory_used_bytes", app | {"area": "heap", "id": "G1 Old Gen"}, old, digits=0)
    w.add(
        "jvm_memory_max_bytes",
        app | {"area": "heap", "id": "G1 Old Gen"},
        [2048.0 * MIB] * len(w.grid),
        digits=0,
    )
    pause_rate = w.move(w.level(0.004, jitter=0.3), since=40, to=0.62, ramp=15)
    w.add(
        "jvm_gc_pause_seconds_sum",
        app | {"action": "end of major GC", "cause": "G1 Humongous Allocation"},
        w.cumulative([60 * p for p in pause_rate]),
        digits=3,
    )
    w.add(
        "jvm_gc_pause_seconds_count",
        app | {"action": "end of major GC", "cause": "G1 Humongous Allocation"},
        w.cumulative(w.move(w.level(0.3, jitter=0.3), since=40, to=55, ramp=15)),
        digits=0,
    )
    w.add("process_cpu_usage", app, w.move(w.level(0.18, jitter=0.1), since=40, to=0.93, ramp=15), digits=3)
    w.add("hikaricp_connections_pending", app | {"pool": "census-pool"}, w.level(0.01, jitter=1.0), digits=0)
    w.add(
        "http_server_requests_seconds_max",
        app | {"uri": "/nests/{id}", "status": "200"},
        w.move(w.level(0.12, jitter=0.2), since=38, to=6.5, ramp=10),
        digits=3,
    )
    w.chatter("nest-census", "info", pick(("GET /nests/{ms} completed in {ms}ms",)), since=180, every=0.6)
    w.log(130, "nest-census", "warn", "GC pause 312ms (G1 Evacuation Pause) gc-note=g-0401")
    for minute, tag in ((50, "g-0417"), (31, "g-0422"), (12, "g-0431")):
        w.log(
            minute,
            "nest-census",
            "warn",
            f"GC pause 2{tag[-2:]}4ms (G1 Humongous Allocation) 1985M->1979M(2048M) gc-note={tag}",
        )
    w.alert(
        "JvmGcPauseHigh",
        {"application": "nest-census", "severity": "critical"},
        24,
        summary="nest-census spends 62% of wall time in GC pauses",
    )
    w.ask(
        "gannet-census-slow",
        "nest-census requests take seconds instead of milliseconds. What's going on?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="nest-census",
        category="memory",
        data_contains=["jvm_gc_pause_seconds"],
    )
    w.ask(
        "gannet-warn-lines",
        "List the WARN lines from nest-census in the last hour.",
        kind="data-question",
        route="lookup",
        data_contains=["g-0417", "g-0422", "g-0431"],
        data_none=["g-0401"],
    )
    return w


def stint_flapping_firing() -> DevWorld:
    w = DevWorld(
        "stint-flapping-firing",
        "2027-08-20T16:45:00Z",
        2407,
        "Wader ringing app on PostgreSQL: the too-many-connections rule sits at 80% of max_connections and "
        "the pool's normal 78-83% swing fires it for the eighth time today; nothing else moves.",
    )
    pg = {"job": "postgres", "instance": "stint-pg-1", "server": "stint-pg-1:5432"}
    w.add("pg_settings_max_connections", pg, [200.0] * len(w.grid), digits=0)
    w.add(
        "pg_stat_activity_count",
        pg | {"datname": "ringing", "state": "active"},
        w.level(31, jitter=0.15),
        digits=0,
    )
    w.add(
        "pg_stat_activity_count",
        pg | {"datname": "ringing", "state": "idle"},
        w.level(130, jitter=0.03, wave=0.025, period=23),
        digits=0,
    )
    w.add(
        "pg_stat_database_xact_commit",
        pg | {"datname": "ringing"},
        w.cumulative(w.level(2400, jitter=0.08)),
        digits=0,
    )
    episodes = ((176, 171), (150, 147), (121, 118), (97, 95), (70, 66), (48, 45), (22, 19))
    for start, end in episodes:
        w.alert(
            "PostgresqlTooManyConnections",
            {"instance": "stint-pg-1", "severity": "warning"},
            start,
            ended=end,
            summary="PostgreSQL instance has too many connections (> 80%).",
        )
    w.alert(
        "PostgresqlTooManyConnections",
        {"instance": "stint-pg-1", "severity": "warning"},
        3,
        summary="PostgreSQL instance has too many connections (> 80%).",
        expr="sum by (instance) (pg_stat_activity_count) > pg_settings_max_connections * 0.8",
    )
    w.chatter("ring-registry", "info", pick(("ring {rid} registered at site s{ms}",)), since=180, every=0.7)
    w.ask(
        "stint-connections-firing",
        "PostgresqlTooManyConnections is firing again on stint-pg-1. Should we worry?",
        kind="healthy-noise",
        keywords_none=["root cause:"],
        data_contains=["PostgresqlTooManyConnections"],
    )
    return w


WORLDS = (sorrel_checkpoint_storm, basalt_disk_io, gannet_gc_thrash, stint_flapping_firing)
