"""The log formats a host writes, detected per file: where an entry starts, its time and its level.

Each format reads only the first line of an entry (its head); any line that is not a head (a stack
trace frame, PostgreSQL's DETAIL/HINT/STATEMENT lines, a wrapped statement) continues the entry before
it. Levels come from each format's own severity words and are named as `tools.base.LOG_LEVELS` names
them (debug, info, warn, error, fatal). Times without a zone are the host's local time.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_MAX_LABELS = 12
_MAX_LABEL_CHARS = 120

# A format's own severity word -> the level name the logs capability filters on.
_LEVEL_WORDS: Mapping[str, str] = {
    "trace": "debug", "debug": "debug", "debug1": "debug", "debug2": "debug", "debug3": "debug",
    "debug4": "debug", "debug5": "debug", "verbose": "debug",
    "info": "info", "information": "info", "informational": "info", "notice": "info", "note": "info",
    "log": "info", "system": "info",
    "warn": "warn", "warning": "warn",
    "err": "error", "error": "error",
    "crit": "fatal", "critical": "fatal", "fatal": "fatal", "panic": "fatal", "alert": "fatal",
    "emerg": "fatal", "emergency": "fatal",
}  # fmt: skip
# syslog/journald priorities 0..7 (RFC 5424).
PRIORITY_LEVELS = ("fatal", "fatal", "fatal", "error", "warn", "info", "info", "debug")
# pino/bunyan numeric levels.
_NUMERIC_LEVELS = ((60, "fatal"), (50, "error"), (40, "warn"), (30, "info"), (0, "debug"))


@dataclass(frozen=True, slots=True)
class Head:
    """The first line of an entry, read: `ts` None when the line carries no readable time."""

    ts: datetime | None
    level: str
    message: str
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LogFormat:
    name: str
    head: Callable[[str], Head | None]
    # Lines that are neither a head nor part of an entry (MariaDB's slow log "# Time:" lines).
    ignored: Callable[[str], bool] = lambda line: False
    # The time of a whole entry, for formats whose head line carries none.
    entry_time: Callable[[str], datetime | None] = lambda text: None


def level_word(word: str, default: str = "info") -> str:
    return _LEVEL_WORDS.get(word.strip().lower(), default)


def _local(naive: datetime) -> datetime:
    return naive.astimezone(UTC)  # astimezone reads a naive time as the host's local time


def parse_time(value: object) -> datetime | None:
    """ISO 8601 text or epoch seconds/milliseconds/microseconds/nanoseconds, as UTC."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = float(value)
        while seconds > 1e11:  # milli-, micro- or nanoseconds
            seconds /= 1_000
        return datetime.fromtimestamp(seconds, UTC)
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace(",", "."))
    except ValueError:
        return parse_time(float(value)) if re.fullmatch(r"\d{9,19}(\.\d+)?", value) else None
    return parsed.astimezone(UTC) if parsed.tzinfo else _local(parsed)


# --- JSON lines and logfmt ---------------------------------------------------------------------

_TIME_KEYS = ("ts", "time", "timestamp", "@timestamp", "datetime", "date")
_LEVEL_KEYS = ("level", "severity", "lvl", "levelname", "log.level", "loglevel")
_MESSAGE_KEYS = ("message", "msg", "@message", "event")


def _structured_level(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return next(level for floor, level in _NUMERIC_LEVELS if value >= floor)
    return level_word(str(value)) if value is not None else "info"


_SCALARS = (str, int, float)  # a tuple: isinstance on a union type is several times slower


@functools.lru_cache(maxsize=1_024)
def _label_name(name: str) -> bool:
    return _LABEL_NAME.fullmatch(name) is not None


def _structured_head(fields: Mapping[str, Any], line: str) -> Head:
    ts_key = next((key for key in _TIME_KEYS if key in fields), None)
    level_key = next((key for key in _LEVEL_KEYS if key in fields), None)
    message_key = next((key for key in _MESSAGE_KEYS if isinstance(fields.get(key), str)), None)
    labels: dict[str, str] = {}
    for name, value in fields.items():
        if name in (ts_key, level_key, message_key) or not _label_name(name):
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        if isinstance(value, _SCALARS) and len(labels) < _MAX_LABELS:
            labels[name] = str(value)[:_MAX_LABEL_CHARS]
    return Head(
        ts=parse_time(fields[ts_key]) if ts_key else None,
        level=_structured_level(fields[level_key]) if level_key else "info",
        message=str(fields[message_key]) if message_key else line,
        labels=labels,
    )


def _json_head(line: str) -> Head | None:
    if not line.startswith("{"):
        return None
    try:
        fields = json.loads(line)
    except ValueError:
        return None
    return _structured_head(fields, line) if isinstance(fields, dict) else None


_LOGFMT_PAIR = re.compile(r'([\w.@-]+)=("(?:[^"\\]|\\.)*"|\S*)')
_LOGFMT_KEYS = frozenset({*_TIME_KEYS, *_LEVEL_KEYS, *_MESSAGE_KEYS})


def _unquoted(value: str) -> str:
    return value[1:-1].replace('\\"', '"') if value.startswith('"') else value


def _logfmt_head(line: str) -> Head | None:
    pairs = _LOGFMT_PAIR.findall(line)
    if len(pairs) < 2 or not _LOGFMT_KEYS.intersection(key for key, _ in pairs):
        return None
    fields = {key: _unquoted(value) for key, value in pairs}
    return _structured_head(fields, line)


# --- PostgreSQL (stderr / logging_collector), MariaDB, Redis -----------------------------------

_PG_MAIN = "DEBUG[1-5]|LOG|INFO|NOTICE|WARNING|ERROR|FATAL|PANIC"
_PG_CONTINUATION = "DETAIL|HINT|QUERY|CONTEXT|STATEMENT|LOCATION"
# `%m [%p] ` (the default prefix) or longer prefixes that start with the time.
_PG = re.compile(
    r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?)(?: ([A-Za-z]{1,6}|[+-]\d{2}(?::?\d{2})?))? "
    rf".*?\b({_PG_MAIN}|{_PG_CONTINUATION}):  "
)


def _zoned(naive: datetime, zone: str | None) -> datetime:
    if zone is None:
        return _local(naive)
    if zone.upper() in {"UTC", "GMT", "Z", "UT"}:
        return naive.replace(tzinfo=UTC)
    if match := re.fullmatch(r"([+-])(\d{2}):?(\d{2})?", zone):
        offset = timedelta(hours=int(match[2]), minutes=int(match[3] or 0))
        return naive.replace(tzinfo=timezone(offset if match[1] == "+" else -offset)).astimezone(UTC)
    return _local(naive)  # an abbreviation such as CET names the host's own zone


def _postgres_head(line: str) -> Head | None:
    match = _PG.match(line)
    if match is None or re.fullmatch(_PG_CONTINUATION, match[3]):
        return None
    ts = _zoned(datetime.fromisoformat(match[1]), match[2])
    return Head(ts=ts, level=level_word(match[3].rstrip("12345")), message=line)


_MARIADB = re.compile(
    r"(\d{4}-\d{2}-\d{2}[ T] ?\d{1,2}:\d{2}:\d{2}(?:\.\d+)?Z?|\d{6} +\d{1,2}:\d{2}:\d{2})"
    r" +(?:\d+ +)?\[(Note|Warning|ERROR|Error|System|Info)\] "
)


def _mariadb_time(text: str) -> datetime:
    if text.endswith("Z"):
        return datetime.fromisoformat(text)
    date, clock = text.replace("T", " ").split(maxsplit=1)
    day = datetime.strptime(date, "%y%m%d") if len(date) == 6 else datetime.strptime(date, "%Y-%m-%d")
    hours, minutes, seconds = clock.split(":")
    moment = day.replace(hour=int(hours), minute=int(minutes)) + timedelta(seconds=float(seconds))
    return _local(moment)


def _mariadb_head(line: str) -> Head | None:
    match = _MARIADB.match(line)
    if match is None:
        return None
    return Head(ts=_mariadb_time(match[1]), level=level_word(match[2]), message=line)


# The slow log has no severity: every entry is a statement over long_query_time, worth a warning.
_SLOW_TIMESTAMP = re.compile(r"SET timestamp=(\d+);")


def _mariadb_slow_head(line: str) -> Head | None:
    if not line.startswith("# User@Host: "):
        return None
    return Head(ts=None, level="warn", message=line)


def slow_entry_time(text: str) -> datetime | None:
    """A slow-log entry's time: its `SET timestamp=` line (the `# Time:` line is not written for
    every entry)."""
    match = _SLOW_TIMESTAMP.search(text)
    return datetime.fromtimestamp(int(match[1]), UTC) if match else None


_REDIS = re.compile(r"\d+:[XCSM] (\d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?) ([.*#-]) ")
_REDIS_LEVELS = {".": "debug", "-": "info", "*": "info", "#": "warn"}


def _redis_head(line: str) -> Head | None:
    match = _REDIS.match(line)
    if match is None:
        return None
    ts = _local(datetime.strptime(match[1].split(".")[0], "%d %b %Y %H:%M:%S"))
    return Head(ts=ts, level=_REDIS_LEVELS[match[2]], message=line)


# --- nginx and syslog --------------------------------------------------------------------------

_NGINX_ACCESS = re.compile(r'\S+ \S+ \S+ \[([^\]]+)\] "[^"]*" (\d{3}) (?:\d+|-)')
_NGINX_ERROR = re.compile(r"(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}) \[(\w+)\] ")


def _nginx_access_head(line: str) -> Head | None:
    match = _NGINX_ACCESS.match(line)
    if match is None:
        return None
    try:
        ts = datetime.strptime(match[1], "%d/%b/%Y:%H:%M:%S %z").astimezone(UTC)
    except ValueError:
        return None
    status = int(match[2])
    level = "error" if status >= 500 else "warn" if status >= 400 else "info"
    return Head(ts=ts, level=level, message=line, labels={"status": match[2]})


def _nginx_error_head(line: str) -> Head | None:
    match = _NGINX_ERROR.match(line)
    if match is None:
        return None
    ts = _local(datetime.strptime(match[1], "%Y/%m/%d %H:%M:%S"))
    return Head(ts=ts, level=level_word(match[2]), message=line)


_SYSLOG = re.compile(
    r"(?:<(\d{1,3})>\d? ?)?"
    r"(\w{3} [ \d]\d \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?)"
    r" (\S+) ([^\s:\[]+)(?:\[\d+\])?: "
)
_SEVERITY_WORD = re.compile(r"\b(emerg|alert|crit|critical|fatal|panic|error|err|warning|warn)\b", re.I)


def _syslog_time(text: str) -> datetime | None:
    if text[0].isdigit():
        return parse_time(text)
    now = datetime.now()
    moment = datetime.strptime(f"{now.year} {text}", "%Y %b %d %H:%M:%S")
    if moment > now + timedelta(days=1):  # December's lines read in January
        moment = moment.replace(year=now.year - 1)
    return _local(moment)


def _syslog_head(line: str) -> Head | None:
    match = _SYSLOG.match(line)
    if match is None:
        return None
    if match[1] is not None:
        level = PRIORITY_LEVELS[int(match[1]) % 8]
    else:  # a plain syslog file keeps no priority: the message's own severity word, if any
        word = _SEVERITY_WORD.search(line, match.end())
        level = level_word(word[1]) if word else "info"
    labels = {"host": match[3], "program": match[4]}
    return Head(ts=_syslog_time(match[2]), level=level, message=line, labels=labels)


def _plain_head(line: str) -> Head | None:
    word = _SEVERITY_WORD.search(line)
    return Head(ts=None, level=level_word(word[1]) if word else "info", message=line)


FORMATS = (
    LogFormat("json", _json_head),
    LogFormat("logfmt", _logfmt_head),
    LogFormat("postgresql", _postgres_head),
    LogFormat("mariadb", _mariadb_head),
    LogFormat(
        "mariadb-slow",
        _mariadb_slow_head,
        ignored=lambda line: line.startswith("# Time: "),
        entry_time=slow_entry_time,
    ),
    LogFormat("redis", _redis_head),
    LogFormat("nginx-access", _nginx_access_head),
    LogFormat("nginx-error", _nginx_error_head),
    LogFormat("syslog", _syslog_head),
)
# Every line its own entry, timed by the entries around it: what a file of no known format gets.
PLAIN = LogFormat("plain", _plain_head)


def detect(sample: Iterable[str]) -> LogFormat:
    """The format whose heads match most of `sample`'s lines (the newest lines of one file)."""
    lines = [line for line in sample if line.strip()]
    best, best_count = PLAIN, 0
    for candidate in FORMATS:
        count = sum(1 for line in lines if candidate.head(line) is not None)
        if count > best_count:
            best, best_count = candidate, count
    return best
