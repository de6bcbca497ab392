"""Log patterns: drain3 templates over one evidence item's lines, with counts and first/last seen.

Variable parts (ids, numbers, hex, addresses, durations) are masked before mining so that one
kind of message is one pattern whatever its values. Errors rank first, then warnings, then by count.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from drain3.masking import MaskingInstruction
from drain3.template_miner import TemplateMiner
from drain3.template_miner_config import TemplateMinerConfig

from tools.digest.labels import HOST_LABEL_KEYS, clip_ends, iso_utc, parse_instant, service_of
from tools.digest.limits import DigestLimits
from tools.facts import LogPattern

# Order matters: the most specific shapes are masked first so that a UUID is not read as numbers.
_MASKS: tuple[tuple[str, str], ...] = (
    (r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", "UUID"),
    (r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b", "IP"),
    (r"\b0x[0-9a-fA-F]+\b", "HEX"),
    (r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}\b", "HEX"),
    (r"\bv?\d+\.\d+\.\d+(?:[-+.][0-9A-Za-z.]+)?\b", "VERSION"),
    (r"\b\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h)\b", "DURATION"),
    # ids such as ord-48213 or tx_9f3k2: a word, a separator, then 3+ characters with a digit.
    (r"\b[A-Za-z]+[-_](?=[A-Za-z0-9]*\d)[A-Za-z0-9]{3,}\b", "ID"),
    # Numbers glued to a word (HikariPool-1, http2) are part of a name, not a value.
    (r"(?<![\w-])[-+]?\d+(?:\.\d+)?%?", "NUM"),
)

_REASON_KEYS = ("reason", "event_reason")
_LEVEL_KEYS = ("level", "severity", "lvl", "log_level", "detected_level")
_LEVEL_ALIASES: Mapping[str, str] = {
    "fatal": "error", "critical": "error", "crit": "error", "panic": "error", "emerg": "error",
    "alert": "error", "err": "error", "error": "error", "severe": "error",
    "warn": "warn", "warning": "warn",
    "info": "info", "notice": "info", "information": "info",
    "debug": "debug", "trace": "debug",
}  # fmt: skip
_LEVEL_IN_TEXT = re.compile(r"\b(FATAL|CRITICAL|PANIC|ERROR|ERR|SEVERE|WARNING|WARN|INFO|DEBUG|TRACE)\b")
_LEVEL_RANK: Mapping[str | None, int] = {"error": 0, "warn": 1}
_INFO_RANK = 2  # every other level


@dataclass(slots=True)
class _Cluster:
    service: str | None
    level: str | None
    count: int = 0
    first: datetime | None = None
    last: datetime | None = None
    example: str = ""
    reason: str | None = None
    levels: dict[str, int] = field(default_factory=dict)
    hosts: set[str] = field(default_factory=set)
    stamps: list[datetime] = field(default_factory=list)  # when each line came, for `_steady`


def patterns_from(
    evidence_id: str,
    data: Mapping[str, Any],
    *,
    now: datetime,
    limits: DigestLimits,
    read_from: datetime | None = None,
    read_to: datetime | None = None,
) -> list[LogPattern]:
    """The top log patterns of one evidence item's lines, per service and level. `read_from` is
    where the read began (its query's start) and `read_to` where it ended (now unless it ended
    earlier): a pattern there from its first minutes to its last at an even rate is marked `steady`."""
    miner = TemplateMiner(config=_miner_config())
    # Repeated messages are masked once; drain still sees every line, in order, as before.
    masked: dict[str, str] = {}
    clusters: dict[tuple[int, str | None], _Cluster] = {}
    for raw in data.get("lines") or []:
        if not isinstance(raw, Mapping):
            continue
        message = str(raw.get("message") or raw.get("line") or "").strip()
        ts = parse_instant(raw.get("ts"))
        if not message or ts is None or ts > now:
            continue
        labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
        service = service_of(labels, limits.identity)
        level = _level_of(labels, message)
        if message not in masked:
            masked[message] = miner.masker.mask(message)
        # What `TemplateMiner.add_log_message` does, minus building a result (and template) per line.
        cluster, _ = miner.drain.add_log_message(masked[message])
        cluster_id = int(cluster.cluster_id)
        entry = clusters.setdefault((cluster_id, service), _Cluster(service=service, level=level))
        _record(entry, ts, message, level)
        if read_from is not None:
            entry.stamps.append(ts)
        if host := next((labels[k] for k in HOST_LABEL_KEYS if labels.get(k)), None):
            entry.hosts.add(host)
        if entry.reason is None:
            entry.reason = _reason_of(labels, message)
    templates = {c.cluster_id: c.get_template() for c in miner.drain.clusters}
    end = now if read_to is None else min(read_to, now)
    read = _covered(read_from, end, [t for entry in clusters.values() for t in entry.stamps])

    def clipped(line: str) -> str:
        return clip_ends(line, limits.example_chars, limits.example_tail_chars)

    found = [
        LogPattern(
            evidence_id=evidence_id,
            service=entry.service,
            level=_dominant_level(entry),
            template=clipped(templates.get(cluster_id, entry.example)),
            count=entry.count,
            first_seen=iso_utc(entry.first or now),
            last_seen=iso_utc(entry.last or now),
            example=clipped(entry.example),
            reason=entry.reason,
            host=next(iter(entry.hosts)) if len(entry.hosts) == 1 else None,
            steady=read is not None and _steady(entry, read),
        )
        for (cluster_id, _), entry in clusters.items()
    ]
    return rank_patterns(found, limits.max_patterns_per_evidence)


def rank_patterns(patterns: Sequence[LogPattern], limit: int) -> list[LogPattern]:
    """Errors, then warnings, then the rest; each by count, then by who appeared first. Below the
    warnings, lines as steady through the read as at its start come last: a controller's status every
    minute would crowd out the one line saying what it changed."""
    ordered = sorted(
        patterns,
        key=lambda p: (
            _LEVEL_RANK.get(p.level, 2),
            p.steady and _LEVEL_RANK.get(p.level, 2) >= _INFO_RANK,
            -p.count,
            p.first_seen,
            p.template,
        ),
    )
    return ordered[:limit]


STEADY_MIN_LINES = 6
STEADY_EDGE = timedelta(
    minutes=10
)  # a steady pattern's first and last lines lie this close to the read's ends
STEADY_SPAN = timedelta(minutes=5)  # each stretch of the read compared is at least this long
STEADY_RATIO = 2.0  # its rates in the two stretches are within this factor of each other
_CUT_GAP = 5  # a gap this many times the lines' median spacing is where a capped read left lines out


def _covered(
    read_from: datetime | None, now: datetime, stamps: list[datetime]
) -> tuple[tuple[datetime, datetime], ...] | None:
    """The read's two stretches whose lines were all kept: its halves, or, when a cap kept its oldest
    and newest lines only, the stretch before the gap and the one after it. None: no read start."""
    if read_from is None or now - read_from < 2 * STEADY_SPAN or not stamps:
        return None
    stamps = sorted(stamps)
    gaps = [(later - earlier, earlier, later) for earlier, later in itertools.pairwise(stamps)]
    spacing = sorted(g for g, _, _ in gaps)[len(gaps) // 2] if gaps else timedelta(0)
    widest = max(gaps, default=None)
    if (
        widest is not None
        and spacing > timedelta(0)
        and widest[0] >= _CUT_GAP * spacing
        and widest[0] >= STEADY_SPAN
    ):
        return ((read_from, widest[1]), (widest[2], now))
    halfway = read_from + (now - read_from) / 2
    return ((read_from, halfway), (halfway, now))


def _steady(entry: _Cluster, read: tuple[tuple[datetime, datetime], ...]) -> bool:
    """Lines from the read's first minutes to its last, at rates within STEADY_RATIO of each other in
    its two stretches."""
    (start, early_end), (late_start, end) = read
    if entry.first is None or entry.last is None or entry.count < STEADY_MIN_LINES:
        return False
    if entry.first - start > STEADY_EDGE or end - entry.last > STEADY_EDGE:
        return False
    if early_end - start < STEADY_SPAN or end - late_start < STEADY_SPAN:
        return False
    early_lines = sum(1 for t in entry.stamps if t <= early_end)
    late_lines = sum(1 for t in entry.stamps if t >= late_start)
    if min(early_lines, late_lines) < STEADY_MIN_LINES // 2:
        return False
    early = early_lines / (early_end - start).total_seconds()
    late = late_lines / (end - late_start).total_seconds()
    return min(early, late) * STEADY_RATIO >= max(early, late)


def _record(entry: _Cluster, ts: datetime, message: str, level: str | None) -> None:
    entry.count += 1
    if level:
        entry.levels[level] = entry.levels.get(level, 0) + 1
    if entry.first is None or ts < entry.first:
        entry.first = ts
    if entry.last is None or ts >= entry.last:
        entry.last = ts
        entry.example = message  # the latest occurrence reads best in an incident


def _dominant_level(entry: _Cluster) -> str | None:
    """The most severe level with a fair share of the pattern (one stray ERROR is not it)."""
    if not entry.levels:
        return entry.level
    for level in sorted(entry.levels, key=lambda lv: _LEVEL_RANK.get(lv, 2)):
        if entry.levels[level] * 5 >= entry.count:
            return level
    return max(entry.levels, key=lambda lv: entry.levels[lv])


def _reason_of(labels: Mapping[str, str], message: str) -> str | None:
    """The event reason beside the message (`reason` on a cluster event), when the message lacks it."""
    for key in _REASON_KEYS:
        value = (labels.get(key) or "").strip()
        if value and len(value) <= 64 and value.lower() not in message.lower():
            return value
    return None


def _level_of(labels: Mapping[str, str], message: str) -> str | None:
    for key in _LEVEL_KEYS:
        value = labels.get(key)
        if value:
            return _LEVEL_ALIASES.get(value.strip().lower(), value.strip().lower())
    match = _LEVEL_IN_TEXT.search(message[:120])
    return _LEVEL_ALIASES.get(match.group(1).lower()) if match else None


@functools.cache  # compiling the masking regexes once, not per digest call
def _miner_config() -> TemplateMinerConfig:
    config = TemplateMinerConfig()
    config.masking_instructions = [MaskingInstruction(rx, name) for rx, name in _MASKS]
    config.drain_sim_th = 0.5
    config.drain_depth = 5
    config.drain_max_clusters = 512  # bounded memory on any input size
    config.profiling_enabled = False
    return config
