"""Development-set worlds read through engine exporters: nginx with a blackbox probe, redis_exporter and
mysqld_exporter."""

from __future__ import annotations

from tests.data.devset.devset_writer import DevWorld, pick

GIB = 1024**3


def heron_upstream_tls() -> DevWorld:
    w = DevWorld(
        "heron-upstream-tls",
        "2027-04-30T00:25:00Z",
        2404,
        "Wetland sensor portal behind nginx: the wader-api's "
        "internal certificate expired at 00:00 and every proxied call fails the TLS handshake.",
    )
    expiry = w.now.timestamp() - 25 * 60
    w.add(
        "probe_ssl_earliest_cert_expiry",
        {"job": "blackbox", "instance": "https://wader-api.heron.internal:8443"},
        [expiry] * len(w.grid),
        digits=0,
    )
    w.add(
        "probe_success",
        {"job": "blackbox", "instance": "https://wader-api.heron.internal:8443"},
        w.move([1.0] * len(w.grid), since=25, to=0, ramp=1, jitter=0),
        digits=0,
    )
    for status, rate in (
        ("200", w.move(w.level(140, jitter=0.06), since=25, to=12, ramp=1)),
        ("502", w.move(w.level(0.1, jitter=0.5), since=25, to=128, ramp=1)),
    ):
        w.add(
            "nginx_http_requests_total",
            {"job": "nginx", "instance": "heron-edge-1", "status": status},
            w.cumulative([60 * r for r in rate]),
            digits=0,
        )
    w.chatter(
        "heron-edge",
        "info",
        pick(('10.1.4.{ms} - - "GET /api/levels HTTP/1.1" 200 812 "-" "heron-app/3.2"',)),
        since=180,
        until=25,
        every=0.2,
    )
    w.chatter(
        "heron-edge",
        "error",
        pick(
            (
                "[error] 31#31: *{ms}771 SSL_do_handshake() failed (SSL: error:0A000086:SSL routines::"
                "certificate verify failed) while SSL handshaking to upstream, upstream: "
                '"https://10.1.9.20:8443/api/levels"',
            )
        ),
        since=25,
        every=0.2,
    )
    w.chatter("wader-api", "info", pick(("served levels for marsh m{ms}",)), since=180, until=25, every=0.5)
    w.alert(
        "NginxHighHttp5xxErrorRate",
        {"instance": "heron-edge-1", "severity": "critical"},
        20,
        description="Too many HTTP requests with status 5xx (> 5%) on heron-edge-1: 91%.",
    )
    w.alert(
        "BlackboxSslCertificateExpired",
        {"instance": "https://wader-api.heron.internal:8443", "severity": "critical"},
        22,
        description="SSL certificate has expired already for https://wader-api.heron.internal:8443",
    )
    w.ask(
        "heron-portal-502",
        "The wetland portal answers 502 for everything since midnight. Why?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="wader-api",
        category="tls",
        data_contains=["certificate"],
    )
    return w


def puffin_evictions() -> DevWorld:
    w = DevWorld(
        "puffin-evictions",
        "2027-05-27T18:05:00Z",
        2405,
        "Burrow session store on Redis: used memory reaches "
        "maxmemory at 17:41 and keys are evicted; users are logged out.",
    )
    redis = {"job": "redis", "instance": "puffin-cache-0"}
    used = w.climb(w.level(2.1 * GIB, jitter=0.01), since=150, to=3.99 * GIB, until=24)
    w.add("redis_memory_used_bytes", redis, [min(v, 4.0 * GIB) for v in used], digits=0)
    w.add("redis_memory_max_bytes", redis, [4.0 * GIB] * len(w.grid), digits=0)
    w.add(
        "redis_evicted_keys_total",
        redis,
        w.cumulative(w.move([0.0] * len(w.grid), since=24, to=2900, ramp=2)),
        digits=0,
    )
    w.add(
        "redis_keyspace_misses_total",
        redis,
        w.cumulative(w.move(w.level(30, jitter=0.2), since=24, to=4100, ramp=2)),
        digits=0,
    )
    w.add("redis_connected_clients", redis, w.level(212, jitter=0.03), digits=0)
    w.chatter("burrow-sessions", "info", pick(("session {rid} refreshed",)), since=180, every=0.3)
    w.chatter(
        "burrow-sessions",
        "warn",
        pick(("session {rid} not found in store, forcing re-login",)),
        since=23,
        every=0.2,
    )
    w.alert(
        "RedisMissesHigh",
        {"instance": "puffin-cache-0", "severity": "warning"},
        18,
        summary="Keyspace miss ratio above 60%",
    )
    w.ask(
        "puffin-logouts",
        "Users of the burrow app keep getting logged out. What's the reason?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="puffin-cache-0",
        category="memory",
        data_contains=["evicted"],
    )
    return w


def wren_replication_broken() -> DevWorld:
    w = DevWorld(
        "wren-replication-broken",
        "2027-06-04T06:50:00Z",
        2406,
        "Nest-box registry on MySQL with a read replica: "
        "the replica's SQL thread stops on a duplicate key at 06:07.",
    )
    rep = {"job": "mysql", "instance": "wren-db-replica"}
    w.add(
        "mysql_slave_status_seconds_behind_master",
        rep,
        w.climb(w.level(0.5, jitter=0.5), since=43, to=2570),
        digits=0,
    )
    w.add(
        "mysql_slave_status_slave_sql_running",
        rep,
        w.move([1.0] * len(w.grid), since=43, to=0, ramp=1, jitter=0),
        digits=0,
    )
    w.add("mysql_slave_status_slave_io_running", rep, [1.0] * len(w.grid), digits=0)
    w.add(
        "mysql_global_status_threads_connected",
        {"job": "mysql", "instance": "wren-db-primary"},
        w.level(61, jitter=0.06),
        digits=0,
    )
    w.log(
        43,
        "wren-db-replica",
        "error",
        "[ERROR] [MY-010584] [Repl] Replica SQL for channel '': Worker 1 failed executing "
        "transaction 'ANONYMOUS' at source log binlog.000412, end_log_pos 88412731; Could not execute "
        "Write_rows event on table "
        "registry.nest_box; Duplicate entry '88412' for key 'nest_box.PRIMARY', Error_code: 1062",
        source="mysqld-error-log",
    )
    w.log(
        43,
        "wren-db-replica",
        "warn",
        "[Warning] [MY-010584] [Repl] Replica: Coordinator stopped because there were error(s) in the "
        "worker(s).",
        source="mysqld-error-log",
    )
    w.chatter("boxcheck-web", "info", pick(("GET /boxes/{ms} 200 from replica",)), since=180, every=0.5)
    w.chatter(
        "boxcheck-web",
        "warn",
        pick(("box {ms} inspection missing on replica read, re-reading primary",)),
        since=40,
        every=1.0,
    )
    w.alert(
        "MysqlReplicationSqlThreadStopped",
        {"instance": "wren-db-replica", "severity": "critical"},
        40,
        summary="MySQL replica SQL thread stopped on wren-db-replica",
    )
    w.ask(
        "wren-inspections-missing",
        "New nest-box inspections don't show up in the registry. What's wrong?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="wren-db-replica",
        category="replication",
        data_contains=["Duplicate entry"],
    )
    return w


WORLDS = (heron_upstream_tls, puffin_evictions, wren_replication_broken)
