"""The words the rule-based analyst reads evidence with: intents, levels, change cues, categories.

Kept in one place so the vocabulary can grow without touching the reasoning. Nothing here names a
world's services, metrics or tables.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|hiya|yo|thanks|thank you|cheers|good (?:morning|afternoon|evening))\b[\s!.,]*",
    re.IGNORECASE,
)
HOW_TO = re.compile(
    r"\b(?:how (?:do|can|should) (?:i|we|you)|how to|what(?:'s| is) the (?:procedure|process|runbook)|"
    r"runbooks?|playbook|procedure|steps to|guide|document(?:ed|ation)|explain|what does .* mean)\b",
    re.IGNORECASE,
)
DIAGNOSTIC = re.compile(
    r"\b(?:why|slow|slower|latency|errors?|fail(?:s|ed|ing|ure)?|down|outage|incident|alert(?:s|ing)?|"
    r"timing out|timeouts?|timed out|spik(?:e|es|ing)|5\d\d|5xx|broken|not working|degraded|wrong|"
    r"happen(?:ed|ing)|investigate|diagnos(?:e|is)|root cause|stuck|crash(?:es|ed|ing)?|oom|"
    r"going on|reason|cause[ds]?|healthy|health|problems?|issues?|saturat\w*|exhaust\w*|leak\w*)\b",
    re.IGNORECASE,
)
FOLLOW_UP = re.compile(
    r"^\s*(?:and|also|what about|how about|and what about)\b|\b(?:that|it|this|those|these|then)\b",
    re.IGNORECASE,
)
# A question about an alert ("Alert X is firing on S", "why is the CPU alert on S firing?").
ALERT_FOCUS = re.compile(r"\b(?:alert(?:s|ing|ed)?|firing|fired)\b", re.IGNORECASE)
WHAT_ABOUT = re.compile(r"\b(?:what|how) about (?:the )?([\w.-]+)", re.IGNORECASE)
NAME_TOKEN = re.compile(r"[A-Za-z][\w.-]*[\w]")
STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "from",
        "with",
        "why",
        "what",
        "how",
        "who",
        "when",
        "where",
        "which",
        "it",
        "that",
        "this",
        "those",
        "these",
        "there",
        "their",
        "our",
        "my",
        "your",
        "me",
        "we",
        "i",
        "you",
        "they",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "so",
        "right",
        "now",
        "just",
        "about",
        "any",
        "some",
        "many",
        "much",
        "more",
        "most",
        "very",
        "too",
        "not",
        "no",
        "yes",
        "all",
        "service",
        "services",
        "system",
        "slow",
        "failing",
        "errors",
        "error",
        "customers",
        "users",
        "started",
        "start",
        "ago",
        "half",
        "hour",
    ]
)

ERROR_LEVELS = frozenset({"error", "err", "fatal", "critical", "crit", "panic", "severe", "alert", "emerg"})
WARN_LEVELS = frozenset({"warn", "warning"})
SEVERE_ALERTS = frozenset({"critical", "error", "page", "high", "major", "p1", "p2", "sev1", "sev2"})

# A reload in any spelling (`varnishreload`, "proxy reloaded", "SIGHUP, reloading"), and the name of a
# configuration file ("Loading VCL ... from /etc/varnish/default.vcl"): a change, and a configuration one.
_RELOAD = r"\w+reload|reload(?:ed|ing)"
_CONFIG_FILE = r"\.(?:conf|vcl|ya?ml|toml|ini|cfg|rules)"
# Log lines that record a change to a service: deploys, rollouts, restarts with a version, config
# (reloaded, refreshed, a setting "changed from A to B").
CHANGE = re.compile(
    r"\b(?:deploy(?:ed|ment|ing)?|roll(?:ed)? ?out|released?|upgrade[ds]?|rollback|"
    r"starting \S+ v?\d+\.\d+|version \S*\d|v\d+\.\d+\.\d+|"
    r"config(?:uration)? (?:reload|refresh|change|update)\w*|changed from \S+ to \S+|"
    # A reload in any spelling and a configuration file loaded or made active (`_RELOAD`).
    + _RELOAD
    + r"|(?:load|loading|loaded|applied|applying|activat\w+)\b[^\n]{0,80}?"
    + _CONFIG_FILE
    # A value edited in a configuration file ("/etc/cache.conf: -m 8192 -> -m 1024"), and a change
    # ticket carried out ("change CHG-20931 started by ...").
    + r"|"
    + _CONFIG_FILE
    + r"\b[^\n]{0,80}?(?:->|=>|\u2192)\s*-?\w+|"
    r"\bchange\s+[a-z]+-[\w-]*\d+\s+(?:started|applied|executed|completed)|"
    r"feature (?:flag|toggle|switch)|toggles? (?:refresh|updat|chang|enabl|disabl|flipp)\w*|"
    r"pulled image|updated? image|image updated|scaled (?:up|down) replica set|parameter group|"
    # An orchestrator's client applying a manifest, and what it answers for each object it changed
    # ("configmap/route-config configured", "deployment.apps/api patched").
    r"kubectl (?:apply|patch|edit|set|replace|scale|rollout)|"
    r"[a-z]+(?:\.[a-z]+)*/[\w.-]+ (?:configured|patched)|"
    r"parameters? (?:change|modif)\w*|image \S+:v?\d+\.\d+\S*|"
    # An update of settings, flags or parameters in any vendor's words ("instances.update ...
    # settings.databaseFlags", "Updated parameter max_connections to 120").
    r"(?:update[ds]?|updating|changed|modified|applied|patched)\b.{0,160}?\b(?:settings?|flags?|parameters?)|"
    r"(?:settings?|flags?|parameters?)\b.{0,80}?\b(?:updated|changed|modified|applied))\b|"
    # A cloud audit log's management call (`eventName=UpdateTable`, `ModifyDBInstance`,
    # `SetIamPolicy`), in the API's own spelling; data calls (`PutItem`) are no change.
    r"(?-i:\b(?:Update|Modify|Create|Delete|Set|Change|Put)(?:[A-Z][a-z]*)*?"
    r"(?:Table|Instance|Cluster|Function|Configuration|Config|Policy|Parameters?|Group|Stack|Rule|"
    r"Capacity|Throughput|Settings?|Attributes?|Scaling)\w*)",
    re.IGNORECASE,
)
# A question that asks whether anything is wrong ("is it healthy now?", "is that a real problem?",
# "should I be worried?") rather than why something is: lines as steady as before the window are its
# background, not an answer to it.
HEALTH_CHECK = re.compile(
    r"(?<!what )\b(?:is|are)\s+"
    r"(?:(?:it|that|this|they|anything|something|everything|the\s+[\w-]+(?:\s+[\w-]+)?)\s+)?"
    r"(?:actually\s+|still\s+|really\s+)?"
    r"(?:healthy|wrong|broken|ok(?:ay)?|fine|a\s+real\s+problem|an?\s+(?:real\s+)?issue)\b|"
    r"\bshould\s+(?:i|we)\s+(?:be\s+)?(?:worried|concerned)\b|\breal\s+problem\b",
    re.IGNORECASE,
)
# Infrastructure events a platform records (a managed database's event stream, an orchestrator's):
# evidence like any other, and a cause when they come just before the trouble.
EVENT = re.compile(
    r"\b(?:fail ?over|switchover|promot(?:ed|ion|ing)|reboot(?:ed|ing)?|maintenance|modification|"
    # A replica set's or a consensus group's change of primary, in its own words.
    r"(?:starting an |won |called an )?election|step(?:ped|ping)? ?down|new primary|transition to primary|"
    r"parameter group|checkpoint (?:starting|complete)|vacuum)\b",
    re.IGNORECASE,
)
# The strongest change lines: a rollout finished or a new version started.
ROLLOUT = re.compile(
    r"\b(?:deploy(?:ed|ment)|roll(?:ed)? ?out|released?|upgraded?|starting \S+ v?\d+\.\d+|pulled image|"
    r"updated? image|image updated|new image|starting \S+ version[=: ]v?\d+\.\d+|"
    r"image [\w./-]+:v?\d+\.\d+)\b",
    re.IGNORECASE,
)
# A change line that edits configuration rather than releasing code (a config map, settings, flags).
CONFIG_CHANGE = re.compile(
    r"\b(?:config ?maps?|configuration|config|settings?|feature flags?|flags?|toggles?|parameters?|"
    r"env(?:ironment)? var\w*|capacity|throughput|quotas?|limits?)\b|" + rf"(?:{_RELOAD}|{_CONFIG_FILE})\b|"
    r"(?-i:[a-z](?:Capacity|Throughput|Configuration|Parameters|Settings|Quota|Limit)\w*)",
    re.IGNORECASE,
)
# Metric names whose rise means trouble (a traffic rise alone is not an incident). Storage words
# too: a volume filling up is trouble whatever the size of the step.
BAD_SIGNAL = re.compile(
    r"error|fail|5xx|latency|duration|p9\d|pending|waiting|queue|saturat|pool|timeout|restart|oom|"
    r"memory|disk|cpu|lag|retr|reject|drop|idle_in|in_transaction|lock|dead|throttl|"
    r"volume|bytes|filesystem|fs_|inode|storage|connection|replica|checkpoint|evict|iops|io_time|"
    r"swap|backlog|throttl",
    re.IGNORECASE,
)
# Metric names where more is better (free space, available memory, idle connections, hit ratios):
# their rise is a recovery. Names where less is better (errors, latency, lag, queues): their fall is.
MORE_IS_BETTER = re.compile(r"free|avail|remaining|idle|headroom|success|uptime|hit_?ratio", re.IGNORECASE)
LESS_IS_BETTER = re.compile(
    r"error|fail|5xx|latency|duration|p9\d|pending|waiting|queue|timeout|restart|oom|lag|retr|reject|"
    r"drop|dead|throttl|lock|evict|oldest|_age\b|age_of",
    re.IGNORECASE,
)


# Work a system did (bytes, requests, messages served): more of it is load, not trouble, unless the
# name says what went wrong with it.
_THROUGHPUT = re.compile(
    r"(?:request|response|received|sent|transmit\w*|produced|consumed|read|written|rx|tx)_?"
    r"(?:bytes|requests|messages|records|packets|ops)|_(?:requests|messages|records|ops|bytes)_total",
    re.IGNORECASE,
)
_WENT_WRONG = re.compile(r"error|fail|drop|reject|retr|timeout|dead|throttl|5xx", re.IGNORECASE)


_BUSY = re.compile(r"cpu|busy|utili[sz]ation|usage", re.IGNORECASE)


def load_move(metric: str, direction: str) -> bool:
    """Whether a move is a system doing more work (`rate(kafka_request_bytes_total)` up) or being less
    busy (its CPU fell): how load shifts, not what went wrong."""
    if direction == "down":
        return bool(_BUSY.search(metric)) and not _WENT_WRONG.search(metric)
    return direction == "up" and bool(_THROUGHPUT.search(metric)) and not _WENT_WRONG.search(metric)


def improving(metric: str, direction: str) -> bool:
    """Whether a metric's move is good news: more of what should be high, less of what should be low."""
    if MORE_IS_BETTER.search(metric):
        return direction == "up"
    return direction == "down" and bool(LESS_IS_BETTER.search(metric))


# Category vocabulary: (category, cues found in the root cause's errors, alerts, events and metric
# names). Text is matched as written and with vendor spellings opened up (`VolumeFreeBytes` reads
# as "volume free bytes", `replica_lag` as "replica lag"), so cues are plain words. The older names
# (disk_full, connection_pool_exhaustion, memory_leak, slow_query, configuration_error, cpu_saturation,
# slow_dependency, bad_deploy) are kept: they are the storage, connections, memory, locks,
# configuration, cpu, latency and deploy tags of the evaluation.
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
    ("cpu_saturation", ("cpu", "throttl", "load average", "dtu", "vcore")),
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
    ("tls", ("certificate", "x509", "tls", "ssl", "handshake")),
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
CONFIG_CATEGORY = "configuration_error"
# Symptoms a change just before the trouble explains better than they explain themselves.
GENERIC_CATEGORIES = frozenset(
    {"slow_dependency", "cpu_saturation", "unknown", "unclassified", "latency", "errors", "crashloop"}
    | {"saturation"}  # a backlog or a busy pool after a release
)
UNKNOWN_CATEGORY = "unclassified"
# A machine resource that ran out where the lines were written (no space left, out of memory): said in
# a system's own errors, a cause; a pool's exhaustion may be a slow callee's symptom, so not here.
EXHAUSTED = frozenset({"disk_full", "memory_leak"})
# A login or request refused for its credentials: said on either side of a call, it is the caller's
# credentials that are wrong, never the refusing server that failed.
AUTH_REFUSED = re.compile(
    r"invalid credentials|authentication failed|login (?:failed|refused)|access denied|"
    r"\bunauthori[sz]ed\b|password authentication failed|username or password",
    re.IGNORECASE,
)
# A server's own failure in a caller's line ("login failed upstream=x status=503"): no refusal of the
# caller's credentials, whatever words the caller's action has.
_SERVER_FAILED = re.compile(
    r"\bstatus[=: ]+5\d\d\b|"
    r"\b5\d\d (?:service unavailable|bad gateway|internal server error|gateway timeout)\b|"
    r"timed out|\btimeout\b|\bunavailable\b",
    re.IGNORECASE,
)


def own_credentials_refused(text: str) -> bool:
    """Whether a caller's line says its own credentials were refused (the server did its job)."""
    return AUTH_REFUSED.search(text) is not None and _SERVER_FAILED.search(text) is None
# A machine's own table or limit that filled, in the kernel's or runtime's words: exhaustion the way
# a full disk is, whatever category the rest of the lines speak of.
RAN_OUT = re.compile(
    r"\btable full\b|too many open files|cannot allocate memory|no space left", re.IGNORECASE
)
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

CATEGORY_ADVICE: dict[str, str] = {
    "connection_pool_exhaustion": "Find what holds the connections (leaks, long transactions) and relieve "
    "the pool; roll back a recent change if it introduced the leak.",
    "memory_leak": "Check memory limits and recent allocation changes; restart only after capturing "
    "a heap profile.",
    "disk_full": "Free or extend the affected volume and find what filled it.",
    "slow_query": "Find the blocking or slow statements and their sessions before killing anything.",
    "configuration_error": "Compare the running configuration with the last known good one and revert it.",
    "cpu_saturation": "Find the hot workload and throttle or reschedule it.",
    "slow_dependency": "Check the health of the upstream dependency and the timeouts and retries calling it.",
    DEPLOY_CATEGORY: "Roll back the recent deploy and compare the versions.",
    "replication": "Check the replica's apply position, its network to the primary and what slows replay.",
    "failover": "Confirm which node is primary now, that clients follow it, and why the failover happened.",
    "checkpoint": "Check checkpoint and vacuum frequency and the write load driving them.",
    "tls": "Check the certificate chain, its expiry and the names it covers.",
    "dns": "Check the resolver and the record the failing names resolve to.",
    "crashloop": "Read the last output of the crashing process and its exit reason before restarting it.",
    "disk-io": "Find the workload issuing the I/O and check the volume's throughput and IOPS limits.",
    "saturation": "Find what fills the queue and add capacity or shed load.",
    "latency": "Follow the slow requests to the first component whose latency rose.",
    "errors": "Read the top error template and the first service that logged it.",
    UNKNOWN_CATEGORY: "Look at the earliest anomalous signal of the suspected service.",
}


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
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[_.:/]+")


def readable(text: str) -> str:
    """Vendor spellings opened into words: `VolumeFreeBytes` -> `volume free bytes`."""
    return _SEPARATORS.sub(" ", _CAMEL.sub(" ", text)).lower()


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
    best, best_key = UNKNOWN_CATEGORY, (0, 0)
    for category, cues in vocabulary:
        found = _cue_pattern(tuple(cues))
        hits = len(found.findall(text))
        key = (sum(1 for signal in signals if found.search(signal)), hits)
        if key > best_key:
            best, best_key = category, key
    return best, best_key[1]


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
    if changed and settings:
        return CONFIG_CATEGORY
    if changed and best in GENERIC_CATEGORIES:
        return DEPLOY_CATEGORY
    return best
