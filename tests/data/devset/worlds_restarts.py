"""Development-set worlds whose cause is a process restart that only its own series show: an uptime
gauge falling to zero and the counters of the restarted process starting again from zero."""

from __future__ import annotations

from tests.data.devset.devset_writer import DevWorld, Values, pick


def _uptime(w: DevWorld, *, started_hours_ago: float, restarted: float) -> Values:
    """Seconds since the process started: a restart `restarted` minutes ago sets it back to zero."""
    origin = w.grid[0] - started_hours_ago * 3600
    reset_at = w.grid[w._index(restarted)]
    return [ts - (reset_at if ts >= reset_at else origin) for ts in w.grid]


def _restarted_counter(w: DevWorld, rate_per_min: Values, *, restarted: float) -> Values:
    """A counter of the restarted process: it counts from zero again after the restart."""
    total, out, reset_at = w.rng.uniform(1e6, 5e6), [], w._index(restarted)
    for i, rate in enumerate(rate_per_min):
        total = 0.0 if i == reset_at else total + max(0.0, rate)
        out.append(total)
    return out


def skua_cold_cache() -> DevWorld:
    w = DevWorld(
        "skua-cold-cache",
        "2027-03-09T10:20:00Z",
        7711,
        "Shelf catalogue: the memcached in front of its MySQL restarted at 09:42 (no log says so); the "
        "empty cache sends every read to MySQL, whose threads pile up, and the shelf API slows down.",
    )
    cache = {"job": "memcached", "instance": "skua-memo-1"}
    w.add("memcached_uptime_seconds", cache, _uptime(w, started_hours_ago=400, restarted=38), digits=0)
    hits = w.move(w.level(5200, jitter=0.04), since=38, to=400, ramp=1)
    hits = w.climb(hits, since=36, to=1900)
    w.add(
        "memcached_commands_total",
        cache | {"command": "get", "status": "hit"},
        _restarted_counter(w, hits, restarted=38),
        digits=0,
    )
    misses = w.move(w.level(240, jitter=0.08), since=38, to=4600, ramp=1)
    misses = w.climb(misses, since=36, to=3100)
    w.add(
        "memcached_commands_total",
        cache | {"command": "get", "status": "miss"},
        _restarted_counter(w, misses, restarted=38),
        digits=0,
    )
    items = w.move(w.level(812_000, jitter=0.003), since=38, to=0, ramp=1)
    w.add("memcached_current_items", cache, w.climb(items, since=37, to=310_000), digits=0)
    db = {"job": "mysqld", "instance": "skua-db-1"}
    questions = w.move(w.level(260, jitter=0.06), since=37, to=4300, ramp=2)
    w.add("mysql_global_status_questions", db, w.cumulative([q * 60 for q in questions]), digits=0)
    w.add(
        "mysql_global_status_threads_running",
        db,
        w.move(w.level(6, jitter=0.2), since=37, to=58, ramp=3),
        digits=0,
    )
    w.add("mysql_global_status_threads_connected", db, w.level(140, jitter=0.03), digits=0)
    api = {"job": "shelf-api", "service": "shelf-api"}
    w.add(
        "http_server_requests_seconds_p99", api, w.move(w.level(0.12, jitter=0.08), since=36, to=2.4, ramp=3)
    )
    w.add("http_server_requests_per_second", api, w.level(85, jitter=0.05, wave=0.08))
    w.chatter("shelf-api", "info", pick(("GET /shelves/{rid} 200",)), since=180, every=0.5)
    w.chatter(
        "shelf-api",
        "warn",
        pick(
            (
                "slow read of shelf {rid} from catalogue db took 1.9s",
                "catalogue db read for shelf {rid} exceeded 1500ms",
            )
        ),
        since=35,
        every=0.4,
    )
    w.chatter(
        "skua-db",
        "warn",
        pick(("Aborted connection {rid} to db: 'catalogue' (Got timeout reading)",)),
        since=30,
        every=3.0,
    )
    w.alert(
        "ShelfApiSlow",
        {"service": "shelf-api", "severity": "critical"},
        33,
        summary="shelf-api p99 above 1s for 5 minutes",
    )
    w.alert(
        "MySQLThreadsRunningHigh",
        {"instance": "skua-db-1", "job": "mysqld", "severity": "warning"},
        31,
        summary="More than 40 threads running on skua-db-1",
    )
    w.ask(
        "skua-shelf-slow",
        "Why has the shelf API been slow for the last half hour?",
        kind="event-driven",
        verdict="incident",
        root_cause_service="skua-memo-1",
        data_contains=["memcached_uptime_seconds"],
    )
    w.ask(
        "skua-db-busy",
        "What is overloading skua-db-1?",
        kind="event-driven",
        verdict="incident",
        root_cause_service="skua-memo-1",
    )
    return w


WORLDS = (skua_cold_cache,)
