"""The category vocabulary: the CATEGORIES table of cues a root cause's signals are matched against,
the fallback tags of symptoms that say nothing specific, and the names both analysts use
(`categories.categorize` picks among them).

Nothing here names a world's services, metrics or tables.
"""

from __future__ import annotations

from collections.abc import Sequence

# Category vocabulary: (category, cues found in the root cause's errors, alerts, events and metric
# names). Text is matched as written and with vendor spellings opened up (`VolumeFreeBytes` reads
# as "volume free bytes", `replica_lag` as "replica lag"), so cues are plain words. The older names
# (disk_full, connection_pool_exhaustion, memory_leak, slow_query, configuration_error, cpu_saturation,
# slow_dependency, bad_deploy) are kept: they are the storage, connections, memory, locks,
# configuration, cpu, latency and deploy tags of the evaluation.
TLS_CUES = ("certificate", "x509", "tls", "ssl", "handshake", "pkix", "certpath", "certification path")
CATEGORIES: Sequence[tuple[str, Sequence[str]]] = (
    (
        "connection_pool_exhaustion",
        (
            "connection pool",
            "pool",
            "hikari",
            "connection is not available",
            "too many connections",
            "too many open connections",
            "too many clients",
            "max number of clients",
            "maxclients",
            "rejected connection",
            "connection slots",
            "open connections",
            "connections listener",
            "max connections",
            "maxconn",
            "remaining connection slots",
            "max_connections",
            "jdbc connection",
            "pending_threads",
            "connections_active",
            "database connections",
            "connection limit",
            "idle in transaction",
            "connection leak",
            "exhaust",
        ),
    ),
    (
        "memory_leak",
        ("out of memory", "outofmemory", "oom", "memory", "heap", "rss", "gc overhead", "swap", "evict"),
    ),
    (
        "disk_full",
        (
            "no space left",
            "disk",
            "filesystem",
            "inode",
            "volume full",
            "volume_stats",
            "free storage",
            "storage space",
            "free space",
            "storage full",
            # A database that cannot grow a table or file (Oracle's ORA-1653 "unable to extend ... in
            # tablespace", a full tablespace or datafile).
            "unable to extend",
            "tablespace",
            # A store at its size quota in its own words (a consensus store's "database space
            # exceeded", its NOSPACE alarm, an alert's "QuotaLowSpace").
            "space exceeded",
            "nospace",
            "low space",
            "out of space",
            "running full",
        ),
    ),
    (
        "slow_query",
        (
            "slow query",
            # Its plural (`MySQLSlowQueries`) and a slow log's own entry (`# Query_time: 12.4 Lock_time`).
            "slow queries",
            "query time",
            "lock wait",
            "deadlock",
            "lock timeout",
            "query took",
            "full scan",
            "long-running query",
            "locks",
            "blocking",
            "blocked by",
            "blocked process",
            "blocked session",
            # A server's own word for a lock queue (PostgreSQL's `log_lock_waits` "still waiting for
            # AccessExclusiveLock", a thread state's "Waiting for table metadata lock").
            *("still waiting for", "metadata lock", "exclusive lock", "exclusivelock", "row lock"),
            "table lock",
        ),
    ),
    (
        "configuration_error",
        (
            "configuration",
            "config",
            "misconfig",
            "invalid setting",
            "missing env",
            "feature flag",
            "unknown property",
            # Validation failures of a setting at start-up ("invalid value for X").
            "invalid value",
            "refusing to start",
            "parameter group",
            "parameter change",
            "parameters modified",
            # A login refused: the caller's credentials (a rotated secret, a wrong password) are wrong.
            "invalid credentials",
            "authentication failed",
            "login failed",
            "login refused",
            "unauthorized",
            "access denied",
        ),
    ),
    # DTU and vCore: a managed database's compute units, spent like CPU.
    ("cpu_saturation", ("cpu", "load average", "dtu", "vcore")),
    (
        "slow_dependency",
        (
            "upstream",
            "timed out",
            "timeout",
            "connection refused",
            "unreachable",
            "circuit",
            "503",
            "bad gateway",
        ),
    ),
    # "replica " with its space: an orchestrator's "replicas" (desired vs available) are not replication.
    ("replication", ("replica lag", "replication", "replica ", "standby", "wal receiver", "slave")),
    # An election is how a replica set or a consensus group changes its primary or leader
    # (`replset_member_election_date`, "stepping down"); a client's "not writable primary" sees it.
    (
        "failover",
        (
            "failover",
            "fail over",
            "promoted",
            "promotion",
            "switchover",
            "new primary",
            # A sentinel's or an older replica set's words ("+switch-master", "new master").
            "switch-master",
            "new master",
            "election",
            "elected",
            "stepdown",
            "step down",
            "stepping down",
            "stepped down",
            "notwritableprimary",
            "not writable primary",
            # A consensus group without a leader (Raft's "No cluster leader", a lost quorum).
            *("no cluster leader", "no leader", "leadership lost", "lost leadership", "requestvote"),
            *("lost quorum", "contact quorum", "no primary"),
        ),
    ),
    ("checkpoint", ("checkpoint", "vacuum", "bgwriter", "buffers written", "flush storm")),
    # Java's words for a chain it cannot verify ("PKIX path building failed ... certification path").
    ("tls", TLS_CUES),
    (
        "dns",
        (
            "dns",
            "name resolution",
            "nxdomain",
            "no such host",
            "could not resolve",
            "servfail",
            # libpq's and getaddrinfo's words for a name that does not resolve.
            "could not translate host name",
            "name or service not known",
            "getaddrinfo",
        ),
    ),
    # A supervisor's words for a process that keeps dying (systemd's "start request repeated too
    # quickly", "main process exited"), and a runtime's own ("panic:").
    (
        "crashloop",
        (
            "crashloop",
            "crash loop",
            "back-off restarting",
            "liveness probe",
            "exit code",
            "exit-code",
            "main process exited",
            "start request repeated",
            "restart counter",
            "panic:",
        ),
    ),
    (
        "disk-io",
        (
            "iops",
            "iowait",
            "io wait",
            "disk latency",
            "read latency",
            "write latency",
            "io time",
            "blockio",  # every spelling of disk I/O, folded (`_DISK_IO`)
            "fsync",
            "fdatasync",
            "nvme",
        ),
    ),
    (
        "saturation",
        (
            "queue",
            "backlog",
            # Work a store owes itself piling up (an LSM store's compactions falling behind its writes).
            "pending compaction",
            "compaction task pending",
            "compactions pending",
            "saturat",
            # Capacity spent: writes throttled at a table's provisioned throughput, a rate exceeded
            # (a CPU's throttling says "cpu" too, and is tagged so).
            "throttl",
            "throughput exceeded",
            "provisioned throughput",
            "capacity exceeded",
            "rate exceeded",
            # A far side refusing more of its caller's requests (HTTP 429, a rate limit, a quota).
            "too many requests",
            "rate limit",
            "ratelimit",
            "quota",
            "rejected",
            "busy",
            "thread pool",
            "worker pool",
            "waited",
            "for a worker",
            # A kernel table that filled (connection tracking, file handles): packets and opens refused.
            "table full",
            # A table whose unmerged parts outgrow its merges (a column store refusing inserts).
            "too many parts",
            # A process manager at its worker cap ("server reached pm.max_children setting").
            "max children",
            "max_children",
            "conntrack",
            "too many open files",
            "dropping packet",
        ),
    ),
    # A clock that drifted (a stopped time daemon, an unstable clock source): a cause no tag names, so
    # its own words keep the symptom's fallback tags (errors, latency) from standing in for it.
    (
        "unclassified",
        ("clock skew", "clocksource", "clock offset", "time drift", "timex", "chronyd", "ntpd", "ntp "),
    ),
)
DEPLOY_CATEGORY = "bad_deploy"
TLS_CATEGORY = "tls"
CONFIG_CATEGORY = "configuration_error"
# Symptoms a change just before the trouble explains better than they explain themselves.
GENERIC_CATEGORIES = frozenset(
    {"slow_dependency", "cpu_saturation", "unknown", "unclassified", "latency", "errors", "crashloop"}
    | {"saturation"}  # a backlog or a busy pool after a release
)
UNKNOWN_CATEGORY = "unclassified"
# What a failover looks like from its replicas and clients: the change of primary is the cause.
FAILOVER_SIDE_EFFECTS = frozenset({"replication", "errors", "latency", "unclassified", "crashloop"})
FAILOVER_CUES = tuple(next(cues for name, cues in CATEGORIES if name == "failover"))
# A machine resource that ran out where the lines were written (no space left, out of memory): said in
# a system's own errors, a cause; a pool's exhaustion may be a slow callee's symptom, so not here.
EXHAUSTED = frozenset({"disk_full", "memory_leak"})
# Symptoms that say something is slow or failing but not why: a tag only when nothing specific fits.
FALLBACK_CATEGORIES: Sequence[tuple[str, Sequence[str]]] = (
    # "completed in 2416 ms (threshold 500 ms)", "took 3.1s": a request's time told in its own line.
    (
        "latency",
        (
            "latency",
            "response time",
            "duration",
            "p99",
            "slow",
            "timeout",
            "completed in",
            "took ",
            "threshold",
        ),
    ),
    ("errors", ("error", "5xx", "500", "exception", "fail")),
)
# A deploy or rollback named in the evidence's own words, without a change line to time it.
DEPLOY_WORDS = ("deployed", "deploying", "rollout", "rolled out", "rollback", "rolled back")
# The one category vocabulary both analysts use.
CATEGORY_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            *(name for name, _ in CATEGORIES if name != UNKNOWN_CATEGORY),
            *(name for name, _ in FALLBACK_CATEGORIES),
            DEPLOY_CATEGORY,
            UNKNOWN_CATEGORY,
        ]
    )
)
