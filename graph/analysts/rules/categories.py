"""The categories a root cause is tagged with: the CATEGORIES table of cues, the fallback tags of
symptoms that say nothing specific, and `categorize`, which picks the category
most signals speak of (or the change before the trouble, when it explains them better).

Nothing here names a world's services, metrics or tables.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from graph.analysts.rules.vocabulary import CONFIG_CHANGE, ROLLOUT, readable

# Category vocabulary: (category, cues found in the root cause's errors, alerts, events and metric
# names). Text is matched as written and with vendor spellings opened up (`VolumeFreeBytes` reads
# as "volume free bytes", `replica_lag` as "replica lag"), so cues are plain words. The older names
# (disk_full, connection_pool_exhaustion, memory_leak, slow_query, configuration_error, cpu_saturation,
# slow_dependency, bad_deploy) are kept: they are the storage, connections, memory, locks,
# configuration, cpu, latency and deploy tags of the evaluation.
_TLS_CUES = ("certificate", "x509", "tls", "ssl", "handshake", "pkix", "certpath", "certification path")
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
        ),
    ),
    ("checkpoint", ("checkpoint", "vacuum", "bgwriter", "buffers written", "flush storm")),
    # Java's words for a chain it cannot verify ("PKIX path building failed ... certification path").
    ("tls", _TLS_CUES),
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
_FAILOVER_SIDE_EFFECTS = frozenset({"replication", "errors", "latency", "unclassified", "crashloop"})
_FAILOVER_CUES = tuple(next(cues for name, cues in CATEGORIES if name == "failover"))
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


_DISK_IO = re.compile(
    r"disk[\s_]*i/?o(?![a-z])|disk[\s_]*io|disk[\s_]*(?:slow|stall)|slow[\s_]+disk"
    # The time a disk's writes or syncs take (`disk_wal_fsync_duration_seconds`, `disk_backend_commit_
    # duration`): a disk that is slow, not full.
    r"|disk(?:[\s_]+[a-z]+){0,3}?[\s_]+(?:duration|latency|fsync|fdatasync|await)",
    re.IGNORECASE,
)
# A process manager's section tag ("WARNING: [pool www] child 1812 ...") names its config, not a pool
# of connections.
_SECTION_TAG = re.compile(r"\[pool [\w.-]+\]", re.IGNORECASE)
# A kernel's processor numbers ("watchdog on CPU1") name a core, not a busy one.
_CPU_NUMBER = re.compile(r"\bcpu\s?\d+\b", re.IGNORECASE)
# An orchestrator's replica set (a Deployment's `ReplicaSet`, "scaled up replica set") counts pods,
# not a database's copies: folded to one word so that the replication cue "replica " skips it.
_REPLICA_SET = re.compile(r"replica[\s_]*sets?\b", re.IGNORECASE)


# Cues that end compound names as often as they start words (a resolver named `<x>dns`, `openssl`,
# `mtls`, `vcpu`).
_INSIDE_WORDS = frozenset({"dns", "ssl", "tls", "cpu", "oom", "iops"})


@cache
def _cue_pattern(cues: tuple[str, ...]) -> re.Pattern[str]:
    """Cues found where a word starts: "locks" is not in "clocksource" nor "pool" in "spool"; a cue
    may still end inside a word ("saturat", "throttl")."""
    return re.compile(
        "|".join(re.escape(cue) if cue in _INSIDE_WORDS else rf"(?<![a-z]){re.escape(cue)}" for cue in cues)
    )


def _best(text: str, vocabulary: Sequence[tuple[str, Sequence[str]]]) -> tuple[str, int]:
    """The category the most signals (lines of `text`) speak of, then the one with the most cues: a
    logger name that spells "HikariPool" four times in one line is one signal about a pool, not
    eight, beside three series and an alert about garbage collection."""
    signals = text.split("\n")
    best, best_key = UNKNOWN_CATEGORY, (0, 0, 0)
    for category, cues in vocabulary:
        found = _cue_pattern(tuple(cues))
        spoken = [i for i, signal in enumerate(signals) if found.search(signal)]
        # As many signals each: the one said first (errors, then alerts, then the strongest moves)
        # before the one with more cue words.
        key = (len(spoken), -spoken[0], len(found.findall(text))) if spoken else (0, 0, 0)
        if key > best_key:
            best, best_key = category, key
    return best, best_key[2]


# A program's own fault reading an invalid address ("panic: runtime error: invalid memory address or
# nil pointer dereference", a segfault's "memory address"): a bug, not memory running out.
_BAD_ADDRESS = re.compile(r"\b(?:invalid )?memory address\b")


def _folded(signal: str) -> str:
    """One signal as written and opened up, with words that look like other categories' folded:
    disk I/O read as one ("disk io", "node_disk_io_time", "DiskIO", a slow or stalled disk: its
    "disk" is no full disk), a replica set of pods, a processor's number, an invalid memory address."""
    signal = _SECTION_TAG.sub("[section]", signal)
    text = _DISK_IO.sub("blockio", f"{signal.lower()} {readable(signal)} ")
    text = _BAD_ADDRESS.sub("badaddress", text)
    return _CPU_NUMBER.sub("core", _REPLICA_SET.sub("podset", text))


def categorize(text: str, *, changed: bool, change_text: str = "") -> str:
    """The category the most signals of `text` (one per line) speak of; a bare change is a deploy regression,
    or a configuration error when the change lines edit configuration and ship no new version.
    Nothing specific: a latency or error-rate tag from the symptoms, else "unclassified"."""
    lowered = "\n".join(_folded(signal) for signal in text.split("\n"))
    best, best_hits = _best(lowered, CATEGORIES)
    if best in _FAILOVER_SIDE_EFFECTS and _cue_pattern(_FAILOVER_CUES).search(lowered):
        # A primary that changed is the event; its replicas' lost links and a down node are how it
        # shows (a sentinel's "+sdown slave" beside its "+switch-master").
        best = "failover"
    if best == "crashloop":
        # A crash loop is how a failure shows, not what failed: its lines' reason wins when they give one.
        reason, reason_hits = _best(lowered, [c for c in CATEGORIES if c[0] not in GENERIC_CATEGORIES])
        best = reason if reason_hits else best
    if not best_hits:
        best = (
            DEPLOY_CATEGORY
            if any(word in lowered for word in DEPLOY_WORDS)
            else _best(lowered, FALLBACK_CATEGORIES)[0]
        )
    # A change of settings just before the trouble is its cause whatever the symptom (a lowered
    # connection limit shows as exhausted connections); a release explains generic symptoms
    # (timeouts, 5xx, CPU) better than they explain themselves, while specific exhaustion cues
    # (pool, memory, disk, locks) still win over it.
    settings = bool(CONFIG_CHANGE.search(change_text)) and not ROLLOUT.search(change_text)
    if changed and best == TLS_CATEGORY and _cue_pattern(_TLS_CUES).search(_folded(change_text)):
        return best  # a certificate swapped in (its chain, its issuer) is no setting: callers fail its trust
    if changed and settings:
        return CONFIG_CATEGORY
    if changed and best in GENERIC_CATEGORIES:
        return DEPLOY_CATEGORY
    return best
