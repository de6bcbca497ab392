"""PostgreSQL's own state, read through the guarded, read-only session like any statement.

Each statement is canned and passes the allowlist guard as written (`pg_blocking_pids` and the size
and WAL functions are on it: they read server state and change nothing). A role with `pg_monitor` sees
every session's application, state and query; one without it sees `<insufficient privilege>` for
other users' queries and no client addresses, which the rows then say.
"""

from __future__ import annotations

from typing import Any

from tools.base import SourceError
from tools.sql.introspect_rows import Reader, Section, records, unavailable

_CLIENTS = "a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()"
_APP = "coalesce(nullif({alias}.application_name, ''), '(none)')"
_CLIENT = "coalesce({alias}.client_addr::text, 'local')"
_SESSIONS = f"""
SELECT {_APP.format(alias="a")} AS application, a.usename AS user_name, {_CLIENT.format(alias="a")} AS client,
  coalesce(a.state, 'unknown') AS state, a.datname AS database, count(*) AS sessions,
  max(extract(epoch FROM now() - a.state_change))::int AS longest_in_state_s
FROM pg_stat_activity a WHERE {_CLIENTS}
GROUP BY 1, 2, 3, 4, 5 ORDER BY sessions DESC, 1 LIMIT 20"""
_CAPACITY = f"""
SELECT current_setting('max_connections')::int AS max_connections,
  current_setting('superuser_reserved_connections')::int AS reserved_connections,
  (SELECT count(*) FROM pg_stat_activity a WHERE {_CLIENTS}) AS total"""
# One row per (waiter, blocker) pair; pg_blocking_pids names every session a waiter waits on.
_BLOCKING = f"""
SELECT w.pid AS waiting_pid, {_APP.format(alias="w")} AS waiting_application, w.datname AS database,
  extract(epoch FROM now() - coalesce(w.query_start, w.state_change))::int AS waiting_s,
  b.pid AS blocking_pid, {_APP.format(alias="b")} AS blocking_application, b.usename AS blocking_user,
  {_CLIENT.format(alias="b")} AS blocking_client, coalesce(b.state, 'unknown') AS blocking_state,
  extract(epoch FROM now() - b.xact_start)::int AS blocking_xact_age_s,
  extract(epoch FROM now() - b.state_change)::int AS blocking_state_s, left(b.query, 600) AS blocking_query
FROM pg_stat_activity w CROSS JOIN LATERAL unnest(pg_blocking_pids(w.pid)) AS bp(pid)
JOIN pg_stat_activity b ON b.pid = bp.pid
ORDER BY b.xact_start NULLS LAST, w.pid LIMIT 100"""
_TRANSACTIONS = f"""
SELECT a.pid, {_APP.format(alias="a")} AS application, a.usename AS user_name,
  {_CLIENT.format(alias="a")} AS client,
  coalesce(a.state, 'unknown') AS state, extract(epoch FROM now() - a.xact_start)::int AS xact_age_s,
  extract(epoch FROM now() - a.state_change)::int AS state_age_s, left(a.query, 600) AS query
FROM pg_stat_activity a WHERE {_CLIENTS} AND a.xact_start IS NOT NULL
  AND (a.state LIKE 'idle in transaction%' OR now() - a.xact_start > interval '5 seconds')
ORDER BY a.xact_start LIMIT 10"""
# Waiters on a row wait on the holder's transaction id (no relation) or on a tuple; the relations they
# already locked say which table the queue is on.
_LOCK_WAITS = """
SELECT n.nspname || '.' || c.relname AS relation, count(DISTINCT a.pid) AS waiting_sessions,
  max(extract(epoch FROM now() - coalesce(a.query_start, a.state_change)))::int AS longest_wait_s
FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid AND l.locktype IN ('relation', 'tuple')
JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE a.wait_event_type = 'Lock' AND c.relkind IN ('r', 'p', 'm')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20"""
_STATEMENTS_EXTENSION = "SELECT extversion FROM pg_extension WHERE extname = 'pg_stat_statements'"
_VERSION = "SELECT current_setting('server_version_num')::int AS version"
# PostgreSQL 13 renamed total_time to total_exec_time.
_STATEMENTS = """
SELECT left(query, 600) AS query, calls, round(({total})::numeric / 1000, 3) AS total_s,
  round(({mean})::numeric, 3) AS mean_ms, rows
FROM pg_stat_statements ORDER BY {total} DESC LIMIT 5"""
_REPLICAS = """
SELECT coalesce(nullif(application_name, ''), '(none)') AS application,
  coalesce(client_addr::text, 'local') AS client,
  state, sync_state, round(extract(epoch FROM replay_lag)::numeric, 3) AS replay_lag_s,
  CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) END
    AS replay_lag_bytes
FROM pg_stat_replication ORDER BY 1 LIMIT 20"""
# The WAL functions below fail outside recovery: CASE keeps them from running there.
_STANDBY = """
SELECT pg_is_in_recovery() AS in_recovery,
  CASE WHEN pg_is_in_recovery()
    THEN round(extract(epoch FROM now() - pg_last_xact_replay_timestamp())::numeric, 3) END AS replay_delay_s,
  CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END AS replay_paused"""
_SIZES = """
SELECT datname AS database, pg_database_size(oid) AS bytes FROM pg_database
WHERE datallowconn ORDER BY 2 DESC, 1 LIMIT 20"""


async def sessions(read: Reader) -> Section:
    capacity = await read(_CAPACITY)
    groups = await read(_SESSIONS)
    return {**(records(capacity)[0] if capacity.rows else {}), "groups": records(groups)}


async def blocking(read: Reader) -> Section:
    return {"pairs": records(await read(_BLOCKING))}


async def transactions(read: Reader) -> Section:
    return {"open": records(await read(_TRANSACTIONS))}


async def lock_waits(read: Reader) -> Section:
    return {"relations": records(await read(_LOCK_WAITS))}


async def statements(read: Reader) -> Section:
    if not (await read(_STATEMENTS_EXTENSION)).rows:
        return unavailable(
            "pg_stat_statements is not installed in this database "
            "(shared_preload_libraries = 'pg_stat_statements', then CREATE EXTENSION pg_stat_statements)"
        )
    version = records(await read(_VERSION))[0]["version"]
    renamed = int(version) >= 130_000
    total, mean = ("total_exec_time", "mean_exec_time") if renamed else ("total_time", "mean_time")
    try:
        top = await read(_STATEMENTS.format(total=total, mean=mean))
    except SourceError as error:
        # Installed but not preloaded: the view raises until the server restarts with the library.
        return unavailable(f"pg_stat_statements could not be read ({error.public})")
    return {"top": records(top)}


async def replication(read: Reader) -> Section:
    standby: dict[str, Any] = records(await read(_STANDBY))[0]
    role = "standby" if standby.get("in_recovery") else "primary"
    return {"role": role, **standby, "replicas": records(await read(_REPLICAS))}


async def sizes(read: Reader) -> Section:
    return {"databases": records(await read(_SIZES))}
