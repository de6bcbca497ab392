"""The evidence boundary: the evidence item, raw source records, and one protocol per source.

Sources (real backends and the fixture world) return plain records; the toolbox turns every call
into one bounded `Evidence` item. Nothing here knows any world's service, metric or table names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable


class EvidenceStatus(StrEnum):
    OK = "OK"
    EMPTY = "EMPTY"
    ERROR = "ERROR"
    TIMEOUT = "TIMEOUT"
    REJECTED = "REJECTED"
    UNAVAILABLE = "UNAVAILABLE"

    @property
    def succeeded(self) -> bool:
        """OK and EMPTY are answers; the others mean the source could not answer."""
        return self in (EvidenceStatus.OK, EvidenceStatus.EMPTY)


class EvidenceSource(StrEnum):
    ALERTS = "alerts"
    METRICS = "metrics"
    LOGS = "logs"
    SQL = "sql"
    KNOWLEDGE = "knowledge"
    CASES = "cases"


@dataclass(frozen=True, slots=True)
class Evidence:
    """One tool call's bounded result; `id` is unique within a run (e.g. `metrics-3`)."""

    id: str
    source: EvidenceSource
    tool: str
    title: str
    summary: str
    data: Mapping[str, Any]
    query: Mapping[str, Any]
    status: EvidenceStatus
    duration_ms: float = 0.0
    bytes: int = 0
    truncated: bool = False

    def public(self) -> dict[str, Any]:
        """The part safe to show a client: no raw data, no query text."""
        return {
            "id": self.id,
            "source": self.source.value,
            "tool": self.tool,
            "title": self.title,
            "status": self.status.value,
        }


@dataclass(frozen=True, slots=True)
class SourceHealth:
    ok: bool
    reason: str = ""


class SourceError(Exception):
    """A failure the source understood; `public` is safe to show, the rest is only logged."""

    def __init__(self, public: str, *, status: EvidenceStatus = EvidenceStatus.ERROR) -> None:
        super().__init__(public)
        self.public = public
        self.status = status


# --- raw records returned by sources -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Alert:
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    starts_at: datetime | None
    ends_at: datetime | None
    status: str  # firing | resolved | pending
    # Alertmanager's suppression: a silenced or inhibited alert still fires, but someone muted it.
    silenced: bool = False
    inhibited: bool = False
    silence_comment: str | None = None
    silenced_until: datetime | None = None


@dataclass(frozen=True, slots=True)
class Series:
    metric: str
    labels: Mapping[str, str]
    samples: Sequence[tuple[float, float]]  # (unix seconds, value), time-ordered


@dataclass(frozen=True, slots=True)
class SeriesRef:
    metric: str
    labels: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class MetricMetadata:
    """What a metrics backend declares about a metric family (`/api/v1/metadata`)."""

    type: str = "unknown"  # counter | gauge | histogram | summary | unknown ...
    help: str = ""
    unit: str = ""


@dataclass(frozen=True, slots=True)
class Rule:
    """An alerting or recording rule, its expression and (alerting) the alerts it holds now."""

    name: str
    kind: str  # alerting | recording
    expr: str
    group: str = ""
    health: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    alerts: Sequence[Alert] = ()


@dataclass(frozen=True, slots=True)
class ScrapeTarget:
    """One active scrape target and its health (`/api/v1/targets`)."""

    labels: Mapping[str, str]  # job, instance and the target's other labels
    health: str  # up | down | unknown
    scrape_url: str = ""
    last_error: str = ""
    last_scrape: datetime | None = None


@dataclass(frozen=True, slots=True)
class LogLine:
    ts: datetime
    labels: Mapping[str, str]  # stream labels: service, level, ...
    message: str


@dataclass(frozen=True, slots=True)
class SqlResult:
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class Passage:
    file: str
    heading: str
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class PastCase:
    case_id: str
    query: str
    answer: str
    root_cause_service: str | None
    category: str | None
    diagnosis_id: str | None
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class TimeWindow:
    start: datetime
    end: datetime


# A level asked for, and the level label values it accepts (case-insensitive): "error" is also "err";
# "info" takes syslog's "notice" too (as the journal's priorities 5..6 do): audit and platform events.
_SEVERE = frozenset({"fatal", "critical", "crit", "panic", "emerg", "emergency", "alert", "severe"})
LOG_LEVELS: Mapping[str, frozenset[str]] = {
    "debug": frozenset({"debug"}),
    "info": frozenset({"info", "notice", "information"}),
    "warn": frozenset({"warn", "warning"}),
    "warning": frozenset({"warn", "warning"}),
    # Error lines are error or worse: a gunicorn `[CRITICAL] WORKER TIMEOUT`, PostgreSQL's FATAL and
    # PANIC are the errors an error read is for.
    "error": frozenset({"err", "error"}) | _SEVERE,
    "fatal": _SEVERE,
    "critical": _SEVERE,
}


# A class of HTTP statuses ("5xx") or one status ("504"); `tools.loki.tools` validates the spelling.
StatusClass = str
STATUS_SPELLING = r"^(?:[1-5]xx|[1-5][0-9][0-9])$"


@dataclass(frozen=True, slots=True)
class LogQuery:
    """Which log lines to return, in no backend's dialect: every backend translates it itself.

    `service` is the identity label (any service when None), `level` a key of `LOG_LEVELS`,
    `contains` a case-sensitive substring of the message, `labels` other stream labels that must
    equal the given values (a namespace, a pod), `other_than` a service whose own lines are left out.
    `native` is a query in the backend's own language
    (LogQL on Loki); when given, the backend runs it instead of the other filters. `oldest_first`
    asks for the window's earliest lines (still at most `limit`, oldest first): when trouble
    began, which the newest lines of a busy stream never show.
    """

    window: TimeWindow
    limit: int
    service: str | None = None
    level: str | None = None
    contains: str | None = None
    # `contains` in any case ("election" keeps "Election succeeded" and `"c":"ELECTION"`).
    any_case: bool = False
    native: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    oldest_first: bool = False
    # An HTTP status class the line records ("5xx": an access log's or a JSON line's status 500-599).
    status_class: StatusClass | None = None
    # Every stream but this service's: what others say about it ("lines naming X, not X's own").
    other_than: str | None = None

    def keeps(self, line: LogLine) -> bool:
        """Whether `line` passes the neutral filters (window, service, level, labels, contains,
        status class)."""
        if not self.window.start <= line.ts < self.window.end:
            return False
        service = line.labels.get("service")
        if not service or (self.service is not None and service != self.service):
            return False
        if self.other_than is not None and service == self.other_than:
            return False
        if self.level is not None and line.labels.get("level", "").lower() not in LOG_LEVELS[self.level]:
            return False
        if any(line.labels.get(name) != value for name, value in self.labels.items()):
            return False
        status = self.status_class
        if status is not None and re.search(status_pattern(status), line.message) is None:
            return False
        if self.contains is None:
            return True
        if self.any_case:
            return self.contains.lower() in line.message.lower()
        return self.contains in line.message


def status_pattern(status_class: StatusClass, *, received: bool = True) -> str:
    """A regular expression (RE2 and Python alike) for a line that records a status of the class (or
    that one status): a combined access log's `" 503 ` after the request, or a structured
    `status=503` / `"status":503` / Traefik's `"DownstreamStatus":504`, or a W3C log's (IIS's default
    fields) status before its last three numbers (`sc-substatus sc-win32-status time-taken`); with
    `received`, also a client's record of the answer it got: the status with its standard reason
    phrase (`-> 429 Too Many Requests`, `503 Service Unavailable`) or after the protocol (`HTTP/1.1 502`)."""
    code = status_class if status_class[1:] != "xx" else f"{status_class[0]}[0-9][0-9]"
    served = rf'(?:" |(?i:status)(?:_code)?"?\s*[:=]\s*"?){code}\b| {code} [0-9]+ [0-9]+ [0-9]+\s*$'
    if not received:
        return served
    return rf"{served}|\b{code} (?i:{_REASONS})\b|\bHTTP(?:/[0-9.]+)? {code}\b"


# HTTP's standard reason phrases (RFC 9110), the words a client library prints after a status.
_REASONS = (
    "too many requests|service unavailable|not found|bad gateway|bad request|gateway time-?out|"
    "internal server error|unauthorized|forbidden|conflict|request time-?out|payload too large|"
    "unprocessable (?:entity|content)|not implemented|method not allowed|gone|precondition failed|"
    "insufficient storage|request entity too large|unavailable for legal reasons|locked"
)


# --- one protocol per capability ---------------------------------------------------------------


@runtime_checkable
class AlertsSource(Protocol):
    async def health(self) -> SourceHealth: ...
    async def now(self) -> datetime: ...
    async def active_alerts(self, *, limit: int) -> list[Alert]: ...


@runtime_checkable
class MetricsSource(Protocol):
    async def health(self) -> SourceHealth: ...
    async def now(self) -> datetime: ...
    async def list_series(self, *, match: str | None, window: TimeWindow, limit: int) -> list[SeriesRef]: ...
    async def query_range(
        self, *, promql: str, window: TimeWindow, step_s: int, max_series: int
    ) -> list[Series]: ...
    async def query_instant(self, *, promql: str, at: datetime, max_series: int) -> list[Series]:
        """The expression evaluated at `at`: one sample `(at, value)` per series; a scalar
        result is one series with an empty name and no labels."""
        ...


@runtime_checkable
class MetricsCatalog(Protocol):
    """What a metrics backend knows besides samples: names, metadata, rules and scrape targets.
    Every answer is bounded by its request, never by the size of the TSDB."""

    async def metric_names(self, *, match: Sequence[str], window: TimeWindow, limit: int) -> list[str]:
        """Metric names with a sample in the window (any series when `match` is empty, else the
        series any selector of `match` selects), sorted, at most `limit`."""
        ...

    async def label_names(self, *, window: TimeWindow, limit: int) -> list[str]: ...
    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]: ...
    async def metadata(self, *, metric: str) -> MetricMetadata | None: ...
    async def rules(self, *, limit: int) -> list[Rule]: ...
    async def targets(self, *, limit: int) -> list[ScrapeTarget]: ...


@runtime_checkable
class LogsSource(Protocol):
    async def health(self) -> SourceHealth: ...
    async def now(self) -> datetime: ...
    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]: ...
    async def query_range(self, query: LogQuery) -> list[LogLine]:
        """The lines `query` selects, newest first (oldest first when it asks), at most `query.limit`."""
        ...


@runtime_checkable
class SqlSource(Protocol):
    async def health(self) -> SourceHealth: ...
    def datasources(self) -> list[str]: ...
    def dialect(self, datasource: str) -> str:
        """`postgres`, `mysql` or `sqlite`: which canned introspection statements apply."""
        ...

    async def list_tables(self, *, datasource: str, limit: int) -> list[str]: ...
    async def query(
        self, *, datasource: str, statement: str, max_rows: int, timeout_ms: int
    ) -> SqlResult: ...


@runtime_checkable
class KnowledgeSource(Protocol):
    async def health(self) -> SourceHealth: ...
    async def index(self, *, limit: int) -> list[tuple[str, str]]: ...  # (file, heading)
    async def search(self, *, query: str, limit: int) -> list[Passage]: ...


@runtime_checkable
class CaseSource(Protocol):
    """Port for the case library; persistence satisfies it structurally, api wires it."""

    async def similar_cases(self, *, query: str, limit: int, principal: str | None) -> list[PastCase]:
        """Only `principal`'s own cases; None means the caller has none (no authentication) and
        reads only cases created without one."""
        ...


@dataclass(slots=True)
class Sources:
    """The backends one toolbox serves; None means that source is not configured."""

    alerts: AlertsSource | None = None
    metrics: MetricsSource | None = None
    logs: LogsSource | None = None
    sql: SqlSource | None = None
    knowledge: KnowledgeSource | None = None
    cases: CaseSource | None = None
