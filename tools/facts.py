"""Digest facts: checkable statements derived from evidence, each naming its evidence ids.

Both analysts reason over a `Digest`, never over raw tool output.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class MetricAnomaly:
    evidence_id: str
    metric: str
    labels: dict[str, str]
    service: str | None
    baseline: float  # typical value before the change
    recent: float  # typical value in the recent window
    peak: float
    change_at: str | None  # ISO-8601 UTC of the first sample of the change
    direction: str  # "up" | "down"
    ratio: float  # recent / baseline (inf-safe: large number when baseline is ~0)
    score: float  # robust deviation, larger is more anomalous
    # "restart": the series states the process's age or start time and it started again at change_at
    # (`tools.digest.restarts`); an event like a deploy, not a level that moved. "ended": the move is
    # over, the series back at its baseline since `ended_at` (`recent` is that current level).
    event: str | None = None
    ended_at: str | None = None


@dataclass(frozen=True, slots=True)
class LogPattern:
    evidence_id: str
    service: str | None
    level: str | None
    template: str
    count: int
    first_seen: str
    last_seen: str
    example: str
    # The event reason a line carries beside its message (an orchestrator's `reason: OOMKilling`):
    # often the one word that names what happened.
    reason: str | None = None
    # The one host every line came from (`host`, `hostname` or `nodename` label): a kernel or
    # syslog stream is about that machine.
    host: str | None = None
    # Who reported the line when it is not the system's own: "scrape" is Prometheus failing to scrape
    # it (the target's last error). Such words say how the system looks from outside.
    origin: str | None = None
    # Present from the read's first minutes at an even rate to its end: the lines show no onset inside
    # the window (a proxy logging a trickle of 503s all day), so they are no new trouble by themselves.
    steady: bool = False


@dataclass(frozen=True, slots=True)
class AlertGroup:
    evidence_id: str
    alertname: str
    service: str | None
    severity: str | None
    status: str
    count: int
    instances: list[str]
    first_started: str | None
    summary: str
    # `job=node instance=db1:9100 mountpoint=/data`: each distinct identity of the group's alerts.
    identities: list[str] = field(default_factory=list)
    value: str | None = None  # the first alert's `value` annotation, as the rule wrote it
    silenced: int = 0  # how many of `count` an operator's silence mutes
    inhibited: int = 0  # how many another alert inhibits
    muted: int = 0  # how many are silenced or inhibited (either)
    silence_comment: str | None = None
    silenced_until: str | None = None
    labels: dict[str, str] = field(default_factory=dict)  # every label of the first alert
    annotations: dict[str, str] = field(default_factory=dict)  # and every annotation
    # From the alert history (`alert_history`): how many times it fired in the history window, and
    # when a group that no longer fires last resolved.
    episodes: int = 0
    ended_at: str | None = None
    history_id: str | None = None  # the evidence item of that history

    @property
    def all_muted(self) -> bool:
        """Every alert of the group is silenced or inhibited: someone already knows."""
        return self.count > 0 and self.muted >= self.count


@dataclass(frozen=True, slots=True)
class SqlSummary:
    evidence_id: str
    datasource: str
    statement: str
    row_count: int
    columns: list[str]
    highlights: list[str]  # short "column=value" facts worth citing


@dataclass(frozen=True, slots=True)
class DatabaseState:
    """What a database says of itself (`inspect_database`): who holds its connections, the head of each
    blocking chain and the sessions queued behind it, its oldest open transactions. Entries are the
    tool's own records (application, pid, state, seconds), bounded."""

    evidence_id: str
    datasource: str
    dialect: str
    max_connections: int | None = None
    total_sessions: int | None = None
    holders: list[dict[str, object]] = field(default_factory=list)  # by application, most sessions first
    blockers: list[dict[str, object]] = field(default_factory=list)  # heads of blocking chains
    transactions: list[dict[str, object]] = field(default_factory=list)  # oldest open first
    lock_waits: list[dict[str, object]] = field(default_factory=list)  # by relation
    unavailable: dict[str, str] = field(default_factory=dict)  # aspect -> why


@dataclass(frozen=True, slots=True)
class RunbookPassage:
    evidence_id: str
    file: str
    heading: str
    excerpt: str
    score: float


@dataclass(frozen=True, slots=True)
class CaseClue:
    """A similar past case: a clue, never sufficient evidence alone."""

    evidence_id: str
    case_id: str
    query: str
    root_cause_service: str | None
    category: str | None
    excerpt: str
    score: float


@dataclass(frozen=True, slots=True)
class SourceGap:
    evidence_id: str
    source: str
    tool: str
    status: str
    reason: str


@dataclass(frozen=True, slots=True)
class RoutineMove:
    """A move the same series made at the same hour `days_before` days earlier (read in
    `earlier_evidence_id`, where it reached `earlier_peak`): the series' daily rhythm, no incident."""

    anomaly: MetricAnomaly
    earlier_evidence_id: str
    days_before: int
    earlier_peak: float


@dataclass(slots=True)
class Digest:
    anomalies: list[MetricAnomaly] = field(default_factory=list)
    log_patterns: list[LogPattern] = field(default_factory=list)
    alert_groups: list[AlertGroup] = field(default_factory=list)
    sql: list[SqlSummary] = field(default_factory=list)
    databases: list[DatabaseState] = field(default_factory=list)
    runbooks: list[RunbookPassage] = field(default_factory=list)
    cases: list[CaseClue] = field(default_factory=list)
    gaps: list[SourceGap] = field(default_factory=list)
    routine: list[RoutineMove] = field(default_factory=list)  # moves that are the series' daily rhythm
    # Label values of every series and log line read (bounded): systems the evidence names even when
    # no fact is about them, so a question about one is not about an unseen system.
    names: set[str] = field(default_factory=set)
    # Of those, the label values of series that measure something (not a scrape's own `up`).
    measured: set[str] = field(default_factory=set)
