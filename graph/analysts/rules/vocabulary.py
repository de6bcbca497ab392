"""The words the rule-based analyst reads evidence with: intents, levels, change and event cues, which
way a metric's move is trouble or recovery, refused credentials, vendor spellings opened into words.

Kept in one place so the vocabulary can grow without touching the reasoning; the categories a root
cause is tagged with, and their cues, are in `categories`. Nothing here names a world's services,
metrics or tables.
"""

from __future__ import annotations

import re

from tools.facts import AlertGroup

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
# A server saying at an informational level that work is stuck behind a lock (PostgreSQL's
# `log_lock_waits` "LOG: process 4821 still waiting for AccessExclusiveLock", a thread's state
# "Waiting for table metadata lock"): a warning in all but its level.
WAITING_ON_LOCK = re.compile(
    r"\bstill waiting for\b|\bwaiting for (?:\w+ ){0,3}?\w*lock\b|\block wait\b", re.IGNORECASE
)
SEVERE_ALERTS = frozenset({"critical", "error", "page", "high", "major", "p1", "p2", "sev1", "sev2"})

# A reload in any spelling (`varnishreload`, "proxy reloaded", "SIGHUP, reloading"), and the name of a
# configuration file ("Loading VCL ... from /etc/varnish/default.vcl"): a change, and a configuration one.
_RELOAD = r"\w+reload|reload(?:ed|ing)"
_CONFIG_FILE = r"\.(?:conf|vcl|ya?ml|toml|ini|cfg|rules)"
# Log lines that record a change to a service: deploys, rollouts, restarts with a version, config
# (reloaded, refreshed, a setting "changed from A to B").
# "Released 13 expired seat holds" (a template's "Released <NUM> ..."), "released the lock": things
# let go, not a release shipped.
_NOT_A_COUNT = r"(?!\s+(?:\d+\s|<\w+>\s|the\s|a\s|an\s|all\s|\w+\s+(?:lock|lease|hold|slot|connection)s?\b))"
CHANGE = re.compile(
    r"\b(?:deploy(?:ed|ment|ing)?|roll(?:ed)? ?out|released?" + _NOT_A_COUNT + r"|upgrade[ds]?|rollback|"
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
    # A GitOps controller syncing an application to a new revision ("Initiated automated sync to
    # '9f1c2ab'", "Sync operation to 9f1c2ab succeeded", "Applied revision: main@sha1:...").
    r"initiated (?:automated )?sync|sync operation to|applied revision|"
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
    r"Capacity|Throughput|Settings?|Attributes?|Scaling)\w*)"
    # A configuration agent's diff adding a setting's new value ("+pm.max_children = 8"), a task of it
    # that changed something ("TASK [haproxy : render ...] changed: [lb-1]") and its diff of a file
    # ("--- before: /etc/x.cfg +++ after: /etc/x.cfg").
    r"|^\+\s*[a-z][\w.]*_[\w.]*\s*[=:]\s*\S|\bchanged:\s*\[|\+\+\+\s*after\b",
    re.IGNORECASE,
)
# A question that asks whether anything is wrong ("is it healthy now?", "is that a real problem?",
# "should I be worried?") rather than why something is: lines as steady as before the window are its
# background, not an answer to it.
HEALTH_CHECK = re.compile(
    r"(?<!what )\b(?:is|are)\s+"
    # "is the broker portal on the IIS farm OK": what is asked about, in up to six words.
    r"(?:(?:it|that|this|they|anything|something|everything|the(?:\s+[\w-]+){1,6}?)\s+)?"
    r"(?:actually\s+|still\s+|really\s+)?"
    r"(?:healthy|wrong|broken|ok(?:ay)?|fine|a\s+real\s+problem|an?\s+(?:real\s+)?issue)\b|"
    r"\bshould\s+(?:i|we)\s+(?:be\s+)?(?:worried|concerned)\b|\breal\s+problem\b|"
    r"\banything\s+(?:i|we)\s+should\s+worry\b|"
    # "Did the deploy break anything?": whether anything is wrong since a change.
    r"\bdid\b[^?.]{0,60}?\b(?:break|hurt|harm|affect)\s+anything\b|"
    r"\bdid\b[^?.]{0,60}?\bcause\s+(?:any\s+)?(?:problems?|issues?|trouble|regressions?)\b",
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
    r"\b(?:deploy(?:ed|ment)|roll(?:ed)? ?out|released?"
    + _NOT_A_COUNT
    + r"|upgraded?|starting \S+ v?\d+\.\d+|pulled image|"
    r"updated? image|image updated|new image|starting \S+ version[=: ]v?\d+\.\d+|"
    r"image [\w./-]+:v?\d+\.\d+|initiated (?:automated )?sync|sync operation to|applied revision)\b",
    re.IGNORECASE,
)
# A change line that edits configuration rather than releasing code (a config map, settings, flags).
CONFIG_CHANGE = re.compile(
    r"\b(?:config ?maps?|configuration|config|settings?|feature flags?|flags?|toggles?|parameters?|"
    r"env(?:ironment)? var\w*|capacity|throughput|quotas?|limits?)\b|" + rf"(?:{_RELOAD}|{_CONFIG_FILE})\b|"
    r"(?-i:[a-z](?:Capacity|Throughput|Configuration|Parameters|Settings|Quota|Limit)\w*)"
    r"|^\+\s*[a-z][\w.]*_[\w.]*\s*[=:]"  # a setting's new value in a configuration agent's diff
    # A configuration manager's run: it applies configuration, it ships no release.
    r"|\bstate\.apply\b|\bhighstate\b|\bapplied catalog\b|\bchef-client\b|\bansible-playbook\b",
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


# The run queue counts as busy too (a host's one-minute load, a load average), not a download's load.
_BUSY = re.compile(r"cpu|busy|utili[sz]ation|usage|(?:^|[_.(])load_?(?:\d|avg|average|norm)", re.IGNORECASE)


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


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[_.:/]+")


def readable(text: str) -> str:
    """Vendor spellings opened into words: `VolumeFreeBytes` -> `volume free bytes`."""
    return _SEPARATORS.sub(" ", _CAMEL.sub(" ", text)).lower()


# An alert's own words saying it always fires (the alerting pipeline's dead man's switch).
_ALWAYS_FIRING = re.compile(
    r"\balways (?:be )?firing\b|\balerting pipeline is (?:functional|working)\b|"
    r"\bdead ?man'?s? (?:switch|snitch)\b",
    re.IGNORECASE,
)


def heartbeat(group: AlertGroup) -> bool:
    """Whether `group` fires by design: its author gave it no severity ("none"), or its text says it
    always fires to prove the pipeline works."""
    return (group.severity or "").lower() == "none" or bool(_ALWAYS_FIRING.search(group.summary or ""))
