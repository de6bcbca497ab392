"""The category a root cause is tagged with: `categorize` picks the category of `category_cues` that
most signals speak of (or the change before the trouble, when it explains them better).

Nothing here names a world's services, metrics or tables.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from graph.analysts.rules.category_cues import (
    CATEGORIES,
    CONFIG_CATEGORY,
    DEPLOY_CATEGORY,
    DEPLOY_WORDS,
    FAILOVER_CUES,
    FAILOVER_SIDE_EFFECTS,
    FALLBACK_CATEGORIES,
    GENERIC_CATEGORIES,
    TLS_CATEGORY,
    TLS_CUES,
    UNKNOWN_CATEGORY,
)
from graph.analysts.rules.vocabulary import CONFIG_CHANGE, ROLLOUT, readable

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
# The thread or process that wrote a line (a prefork worker `ForkPoolWorker-4`, `pool-2-thread-7`) is
# named after its own pool of workers, no pool of connections.
_WORKER_NAME = re.compile(r"\b\w*pool\w*worker-\d+\b|\bpool-\d+-thread-\d+\b", re.IGNORECASE)
# A far side's quota used up ("rate limit exhausted, resets in 58s"): a limit reached, no pool exhausted.
_QUOTA_SPENT = re.compile(r"\b(rate[\s_-]?limit|quota)(\w*(?:\s+\w+){0,2}?)\s+exhaust\w*", re.IGNORECASE)
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
    signal = _WORKER_NAME.sub("[worker]", _SECTION_TAG.sub("[section]", signal))
    signal = _QUOTA_SPENT.sub(r"\1\2 reached", signal)
    text = _DISK_IO.sub("blockio", f"{signal.lower()} {readable(signal)} ")
    text = _BAD_ADDRESS.sub("badaddress", text)
    return _CPU_NUMBER.sub("core", _REPLICA_SET.sub("podset", text))


def categorize(text: str, *, changed: bool, change_text: str = "") -> str:
    """The category the most signals of `text` (one per line) speak of; a bare change is a deploy regression,
    or a configuration error when the change lines edit configuration and ship no new version.
    Nothing specific: a latency or error-rate tag from the symptoms, else "unclassified"."""
    lowered = "\n".join(_folded(signal) for signal in text.split("\n"))
    best, best_hits = _best(lowered, CATEGORIES)
    if best in FAILOVER_SIDE_EFFECTS and _cue_pattern(FAILOVER_CUES).search(lowered):
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
    if changed and best == TLS_CATEGORY and _cue_pattern(TLS_CUES).search(_folded(change_text)):
        return best  # a certificate swapped in (its chain, its issuer) is no setting: callers fail its trust
    if changed and settings:
        return CONFIG_CATEGORY
    if changed and best in GENERIC_CATEGORIES:
        return DEPLOY_CATEGORY
    return best
