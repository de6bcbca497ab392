"""MariaDB's and MySQL's own state, read through the guarded, read-only session like any statement.

Sessions come from information_schema.PROCESSLIST (every session with PROCESS, only one's own without),
transactions from INNODB_TRX and lock waits from INNODB_LOCK_WAITS (MariaDB, MySQL 5.7) or
performance_schema.data_lock_waits (MySQL 8). MariaDB has no application name: a session's user
stands for it.
"""

from __future__ import annotations

from tools.base import SourceError
from tools.sql.introspect_rows import Reader, Section, records, unavailable

_SESSIONS = """
SELECT USER AS application, USER AS user_name, SUBSTRING_INDEX(HOST, ':', 1) AS client,
  CASE WHEN COMMAND = 'Sleep' THEN 'idle' WHEN COMMAND = 'Query' THEN 'active' ELSE LOWER(COMMAND) END
    AS state,
  COALESCE(DB, '') AS database_name, COUNT(*) AS sessions, MAX(TIME) AS longest_in_state_s
FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND COMMAND NOT IN ('Daemon', 'Binlog Dump')
GROUP BY 1, 2, 3, 4, 5 ORDER BY sessions DESC, 1 LIMIT 20"""
_TOTAL = """
SELECT COUNT(*) AS total FROM information_schema.PROCESSLIST
WHERE ID <> CONNECTION_ID() AND COMMAND NOT IN ('Daemon', 'Binlog Dump')"""
_MAX_CONNECTIONS = "SHOW GLOBAL VARIABLES LIKE 'max_connections'"
_PERFORMANCE_SCHEMA = "SHOW GLOBAL VARIABLES LIKE 'performance_schema'"
_SESSION_STATE = "CASE WHEN {p}.COMMAND = 'Sleep' THEN 'idle in transaction' ELSE 'active' END"
_HOLDER = """b.trx_mysql_thread_id AS blocking_pid, COALESCE(bp.USER, '(unknown)') AS blocking_application,
  bp.USER AS blocking_user, SUBSTRING_INDEX(bp.HOST, ':', 1) AS blocking_client,
  {state} AS blocking_state, TIMESTAMPDIFF(SECOND, b.trx_started, NOW()) AS blocking_xact_age_s,
  bp.TIME AS blocking_state_s, LEFT(COALESCE(b.trx_query, bp.INFO), 600) AS blocking_query""".format(
    state=_SESSION_STATE.format(p="bp")
)
_WAITER = """r.trx_mysql_thread_id AS waiting_pid, COALESCE(rp.USER, '(unknown)') AS waiting_application,
  rp.DB AS database_name, TIMESTAMPDIFF(SECOND, r.trx_wait_started, NOW()) AS waiting_s"""
_JOINS = """JOIN information_schema.INNODB_TRX r ON r.trx_id = w.{requesting}
JOIN information_schema.INNODB_TRX b ON b.trx_id = w.{blocking}
LEFT JOIN information_schema.PROCESSLIST rp ON rp.ID = r.trx_mysql_thread_id
LEFT JOIN information_schema.PROCESSLIST bp ON bp.ID = b.trx_mysql_thread_id"""
_BLOCKING_INNODB = f"""
SELECT {_WAITER}, {_HOLDER} FROM information_schema.INNODB_LOCK_WAITS w
{_JOINS.format(requesting="requesting_trx_id", blocking="blocking_trx_id")}
ORDER BY b.trx_started, r.trx_mysql_thread_id LIMIT 100"""
_BLOCKING_PERFORMANCE = f"""
SELECT {_WAITER}, {_HOLDER} FROM performance_schema.data_lock_waits w
{_JOINS.format(requesting="REQUESTING_ENGINE_TRANSACTION_ID", blocking="BLOCKING_ENGINE_TRANSACTION_ID")}
ORDER BY b.trx_started, r.trx_mysql_thread_id LIMIT 100"""
_TRANSACTIONS = f"""
SELECT t.trx_mysql_thread_id AS pid, COALESCE(p.USER, '(unknown)') AS application, p.USER AS user_name,
  SUBSTRING_INDEX(p.HOST, ':', 1) AS client, {_SESSION_STATE.format(p="p")} AS state,
  TIMESTAMPDIFF(SECOND, t.trx_started, NOW()) AS xact_age_s, p.TIME AS state_age_s,
  LEFT(COALESCE(t.trx_query, p.INFO), 600) AS query, t.trx_rows_locked AS rows_locked
FROM information_schema.INNODB_TRX t
LEFT JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
WHERE t.trx_mysql_thread_id <> CONNECTION_ID()
  AND (p.COMMAND = 'Sleep' OR TIMESTAMPDIFF(SECOND, t.trx_started, NOW()) > 5)
ORDER BY t.trx_started LIMIT 10"""
_LOCK_WAITS_INNODB = """
SELECT REPLACE(l.lock_table, '`', '') AS relation, COUNT(DISTINCT w.requesting_trx_id) AS waiting_sessions,
  MAX(TIMESTAMPDIFF(SECOND, r.trx_wait_started, NOW())) AS longest_wait_s
FROM information_schema.INNODB_LOCK_WAITS w
JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.requested_lock_id
JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id
GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20"""
_LOCK_WAITS_PERFORMANCE = """
SELECT CONCAT(l.OBJECT_SCHEMA, '.', l.OBJECT_NAME) AS relation,
  COUNT(DISTINCT w.REQUESTING_ENGINE_TRANSACTION_ID) AS waiting_sessions,
  MAX(TIMESTAMPDIFF(SECOND, r.trx_wait_started, NOW())) AS longest_wait_s
FROM performance_schema.data_lock_waits w JOIN performance_schema.data_locks l
  ON l.ENGINE_LOCK_ID = w.REQUESTING_ENGINE_LOCK_ID
JOIN information_schema.INNODB_TRX r ON r.trx_id = w.REQUESTING_ENGINE_TRANSACTION_ID
GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20"""
# Digest texts are already normalised by the server; timers are in picoseconds.
_STATEMENTS = """
SELECT LEFT(DIGEST_TEXT, 600) AS query, COUNT_STAR AS calls,
  ROUND(SUM_TIMER_WAIT / 1000000000000, 3) AS total_s,
  ROUND(AVG_TIMER_WAIT / 1000000000, 3) AS mean_ms, SUM_ROWS_SENT AS `rows`
FROM performance_schema.events_statements_summary_by_digest WHERE DIGEST_TEXT IS NOT NULL
ORDER BY SUM_TIMER_WAIT DESC LIMIT 5"""
_REPLICA_STATUS = ("SHOW REPLICA STATUS", "SHOW SLAVE STATUS")
# Whether the role may read replica status at all, asked of the server's own account of its grants:
# a refused SHOW counts in the server's Access_denied_errors, so every diagnosis by a role without
# the grant moved that counter (and the counter then looked like trouble on the database).
# USER_PRIVILEGES lists every account to a role with global SELECT: only the role's own rows count
# (GRANTEE is 'user'@'host'; CURRENT_USER() is user@host).
_REPLICA_GRANT = """
SELECT COUNT(*) AS granted FROM information_schema.USER_PRIVILEGES
WHERE GRANTEE = CONCAT(CHAR(39), REPLACE(CURRENT_USER(), '@', CONCAT(CHAR(39), '@', CHAR(39))), CHAR(39))
  AND PRIVILEGE_TYPE IN ('SUPER', 'REPLICATION CLIENT', 'SLAVE MONITOR', 'REPLICA MONITOR')"""
_REPLICA_COLUMNS = {
    "master_host": "source_host", "source_host": "source_host", "slave_io_running": "io_running",
    "replica_io_running": "io_running", "slave_sql_running": "sql_running",
    "replica_sql_running": "sql_running", "seconds_behind_master": "seconds_behind_source",
    "seconds_behind_source": "seconds_behind_source", "last_error": "last_error",
    "last_io_error": "last_io_error", "last_sql_error": "last_sql_error",
}  # fmt: skip
_REPLICAS_CONNECTED = """
SELECT COUNT(*) AS replicas FROM information_schema.PROCESSLIST
WHERE COMMAND IN ('Binlog Dump', 'Binlog Dump GTID')"""
_SIZES = """
SELECT table_schema AS database_name, SUM(data_length + index_length) AS bytes, COUNT(*) AS tables
FROM information_schema.TABLES
WHERE table_schema NOT IN ('information_schema', 'performance_schema', 'mysql', 'sys')
GROUP BY table_schema ORDER BY bytes DESC, 1 LIMIT 20"""


async def _variable(read: Reader, statement: str) -> str:
    rows = (await read(statement)).rows
    return str(rows[0][1]) if rows and len(rows[0]) > 1 else ""


async def sessions(read: Reader) -> Section:
    limit = await _variable(read, _MAX_CONNECTIONS)
    total = records(await read(_TOTAL))[0]["total"]
    groups = [_renamed(g, "database_name", "database") for g in records(await read(_SESSIONS))]
    return {"max_connections": int(limit) if limit.isdigit() else None, "total": total, "groups": groups}


async def _either(read: Reader, first: str, second: str) -> Section:
    # MariaDB and MySQL 5.7 have INNODB_LOCK_WAITS; MySQL 8 only performance_schema's tables.
    try:
        return {"rows": records(await read(first))}
    except SourceError:
        return {"rows": records(await read(second))}


async def blocking(read: Reader) -> Section:
    pairs = (await _either(read, _BLOCKING_INNODB, _BLOCKING_PERFORMANCE))["rows"]
    return {"pairs": [_renamed(pair, "database_name", "database") for pair in pairs]}


async def transactions(read: Reader) -> Section:
    return {"open": records(await read(_TRANSACTIONS))}


async def lock_waits(read: Reader) -> Section:
    return {"relations": (await _either(read, _LOCK_WAITS_INNODB, _LOCK_WAITS_PERFORMANCE))["rows"]}


async def statements(read: Reader) -> Section:
    if (await _variable(read, _PERFORMANCE_SCHEMA)).upper() != "ON":
        return unavailable("performance_schema is off (start the server with performance_schema=ON)")
    return {"top": records(await read(_STATEMENTS))}


async def replication(read: Reader) -> Section:
    connected = records(await read(_REPLICAS_CONNECTED))[0]["replicas"]
    status: list[dict[str, object]] = []
    reason = ""
    if not records(await read(_REPLICA_GRANT))[0]["granted"]:
        reason = "the role holds none of SLAVE MONITOR, REPLICA MONITOR, REPLICATION CLIENT, SUPER"
    for statement in _REPLICA_STATUS if not reason else ():
        try:
            status = records(await read(statement))
            break
        except SourceError as error:
            reason = error.public
    section: Section = {"role": "replica" if status else "primary", "replicas_connected": connected}
    section["sources"] = [
        {_REPLICA_COLUMNS[k]: v for k, v in row.items() if k in _REPLICA_COLUMNS} for row in status[:10]
    ]
    if reason and not status:
        # SHOW REPLICA STATUS needs REPLICA MONITOR / SLAVE MONITOR (REPLICATION CLIENT on MySQL).
        section["replica_status"] = f"not readable ({reason}); grant SLAVE MONITOR or REPLICATION CLIENT"
    return section


async def sizes(read: Reader) -> Section:
    return {"databases": [_renamed(r, "database_name", "database") for r in records(await read(_SIZES))]}


def _renamed(record: dict[str, object], old: str, new: str) -> dict[str, object]:
    # `database` is a reserved word in MariaDB: the statements say database_name, the records say database.
    return {(new if key == old else key): value for key, value in record.items()}
