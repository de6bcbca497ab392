"""The records of a world directory (this module and `loader.py` define the world format), validated.

Timestamps must carry a timezone and are normalised to UTC; series samples are sorted by time.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

_METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
# Fields of a log line that are the line itself, never stream labels.
_LOG_LINE_FIELDS = frozenset({"ts", "message"})


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


class WorldInfo(BaseModel):
    """world.yaml: what the world is and the frozen instant it is served at."""

    model_config = ConfigDict(extra="ignore")

    name: str = ""
    description: str = ""
    now: AwareDatetime | None = None

    @field_validator("now")
    @classmethod
    def _in_utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else _utc(value)


class WorldAlert(BaseModel):
    """One alerts.json entry, in Alertmanager's spelling."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    starts_at: AwareDatetime | None = Field(default=None, alias="startsAt")
    ends_at: AwareDatetime | None = Field(default=None, alias="endsAt")
    status: Literal["firing", "resolved"] = "firing"
    # Alertmanager's suppression, as /api/v2/alerts reports it (a silence's comment and end).
    silenced: bool = False
    inhibited: bool = False
    silence_comment: str | None = Field(default=None, alias="silenceComment")
    silenced_until: AwareDatetime | None = Field(default=None, alias="silencedUntil")
    # The alerting rule's PromQL expression (optional): the fixture serves it through the rules API,
    # and discovery reads the metrics and matchers it names.
    expr: str = ""

    @field_validator("labels")
    @classmethod
    def _has_alertname(cls, value: dict[str, str]) -> dict[str, str]:
        if not value.get("alertname"):
            raise ValueError("labels must include a non-empty alertname")
        return value

    @field_validator("starts_at", "ends_at", "silenced_until")
    @classmethod
    def _in_utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else _utc(value)

    def active_at(self, now: datetime) -> bool:
        """Firing, started by `now` and not yet ended."""
        if self.status != "firing":
            return False
        if self.starts_at is not None and self.starts_at > now:
            return False
        return self.ends_at is None or self.ends_at > now


class WorldSeries(BaseModel):
    """One metrics.json entry: a named series and its (unix seconds, value) samples."""

    model_config = ConfigDict(extra="ignore")

    metric: str
    labels: dict[str, str] = Field(default_factory=dict)
    samples: list[tuple[float, float]] = Field(default_factory=list)

    @field_validator("metric")
    @classmethod
    def _valid_metric_name(cls, value: str) -> str:
        if not _METRIC_NAME.fullmatch(value):
            raise ValueError("not a valid Prometheus metric name")
        return value

    @field_validator("labels")
    @classmethod
    def _valid_label_names(cls, value: dict[str, str]) -> dict[str, str]:
        bad = [name for name in value if not _LABEL_NAME.fullmatch(name) or name == "__name__"]
        if bad:
            raise ValueError(f"invalid label names: {bad[:5]}")
        return value

    @field_validator("samples")
    @classmethod
    def _time_ordered(cls, value: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return sorted(value, key=lambda sample: sample[0])


class WorldMetricMetadata(BaseModel):
    """One metadata.json entry (keyed by metric family): what `/api/v1/metadata` would declare."""

    model_config = ConfigDict(extra="ignore")

    type: Literal["counter", "gauge", "histogram", "gaugehistogram", "summary", "info", "stateset", "unknown"]
    help: str = ""
    unit: str = ""


class WorldLogLine(BaseModel):
    """One logs.jsonl line; every other scalar field becomes a stream label."""

    model_config = ConfigDict(extra="allow")

    ts: AwareDatetime
    service: str
    level: str = "info"
    message: str

    @field_validator("ts")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        return _utc(value)

    def labels(self) -> dict[str, str]:
        """Stream labels: service, level and the other scalar fields with label-safe names."""
        labels = {"service": self.service, "level": self.level}
        for name, value in (self.model_extra or {}).items():
            if name in _LOG_LINE_FIELDS or not _LABEL_NAME.fullmatch(name):
                continue
            if isinstance(value, bool):
                labels[name] = "true" if value else "false"
            elif isinstance(value, str | int | float):
                labels[name] = str(value)
        return labels


# The broad failure-mode tags a devset expectation's `category` uses (issue 22): one tag per kind of
# fault, named by what the evidence shows rather than by any product's wording.
CATEGORY_TAGS: tuple[str, ...] = (
    "storage",  # free space, volumes, disk full
    "replication",  # replica lag, replication slots, broken replication
    "failover",  # failover, promotion, switchover
    "checkpoint",  # checkpoints, vacuum, flush storms
    "locks",  # locks, blocking, deadlocks, lock waits
    "connections",  # connection limits, pools, pending acquisitions
    "cpu",  # CPU saturation, throttling, load
    "memory",  # memory, OOM kills, heap, GC pressure
    "latency",  # slowness without a more specific cause
    "errors",  # error rate without a more specific cause
    "saturation",  # queues, backlogs, thread or worker exhaustion
    "tls",  # certificates and TLS handshakes
    "dns",  # name resolution
    "configuration",  # configuration and parameter changes
    "deploy",  # deploys and rollbacks
    "crashloop",  # crash loops, restarts, failing probes
    "disk-io",  # disk I/O latency, IOPS, queue depth
    "unclassified",  # none of the above fits; the statement still names the signals
)
Verdict = Literal["incident", "healthy", "inconclusive"]
RouteExpectation = Literal["simple", "complex", "lookup"]


class ScenarioExpectation(BaseModel):
    """What a correct diagnosis of a scenario says (read by the evaluation command).

    Every field is optional; an unset field is not judged.
    - `root_cause_service`: the service the released root cause must name.
    - `category`: the released root cause's category. Older worlds use the analyst's own names
      (`disk_full`, ...), matched exactly; the development set (tests/data/devset) uses one of
      `CATEGORY_TAGS`, which a released older name also satisfies when it means that tag
      (api/evaluation/scoring.py, `LEGACY_CATEGORY_TAGS`).
    - `keywords_all` / `keywords_none`: words the answer text must / must not contain.
    - `evidence_sources`: sources the answer must have used (answered OK or EMPTY).
    - `healthy`: the answer must (true) or must not (false) declare the system healthy.
    - `verdict`: incident, healthy or inconclusive. The released `verdict` field when the answer
      carries one; otherwise a diagnosis report is "healthy" when it says healthy and names no root
      cause, else "incident". An incident verdict may come without an established cause (a firing
      alert whose cause is unknown is still an incident); inconclusive means key sources failed or
      returned nothing.
    - `route`: the route the question must take: simple, complex or lookup (a data question: show,
      list, find, the last N lines, the value of a metric, run this PromQL, which alerts or targets).
    - `data_contains`: strings that must all appear in the released answer, rows included (any
      string value of the payload except its evidence list), e.g. a log line's request id.
    - `data_none`: strings that must not appear there (rows the question's filters exclude).
    """

    model_config = ConfigDict(extra="ignore")

    root_cause_service: str | None = None
    category: str | None = None
    keywords_all: list[str] = Field(default_factory=list)
    keywords_none: list[str] = Field(default_factory=list)
    evidence_sources: list[str] = Field(default_factory=list)
    healthy: bool | None = None
    verdict: Verdict | None = None
    route: RouteExpectation | None = None
    data_contains: list[str] = Field(default_factory=list)
    data_none: list[str] = Field(default_factory=list)


class Scenario(BaseModel):
    """One scenarios.yaml entry: a question asked of the world and its expected answer."""

    model_config = ConfigDict(extra="ignore")

    id: str
    question: str
    expect: ScenarioExpectation = Field(default_factory=ScenarioExpectation)
