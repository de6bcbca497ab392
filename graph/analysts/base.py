"""The analyst protocol (route, plan, diagnose, repair) and the typed outputs both analysts return.

Nodes only see these types, so no node knows whether the LLM or the rule-based analyst ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.facts import Digest

Lane = Literal["signals", "logs", "knowledge"]
RouteName = Literal["simple", "complex", "lookup"]
# incident: something is wrong now (a root cause, or a firing alert whose cause is not established);
# healthy: the key sources answered and nothing is abnormal now; inconclusive: they could not tell.
Verdict = Literal["incident", "healthy", "inconclusive"]


class Route(BaseModel):
    """Where a question goes: a short answer path, a lookup of the data asked for, or a diagnosis."""

    route: RouteName
    intent: str = Field(default="diagnosis", description="greeting, how_to, runbook, diagnosis, ...")
    resolved_query: str = Field(description="the question with follow-up references resolved")
    services: list[str] = Field(default_factory=list, description="services the question names")


class PlannedCall(BaseModel):
    """One evidence tool call the planner wants."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    purpose: str = ""


class Plan(BaseModel):
    """The tool calls of one planning round; an empty plan means: enough evidence, diagnose."""

    calls: list[PlannedCall] = Field(default_factory=list)


def _untitled(schema: dict[str, Any]) -> None:
    """No `title` per property in the schema the model reads: the property names already say them."""
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)


class RootCause(BaseModel):
    model_config = ConfigDict(json_schema_extra=_untitled)

    service: str
    category: str
    statement: str
    confidence: float = Field(ge=0.0, le=1.0)


class Finding(BaseModel):
    statement: str
    evidence_ids: list[str] = Field(default_factory=list)


class Recommendation(BaseModel):
    action: str
    runbook: str | None = None


class RuledOut(BaseModel):
    """A red herring: a signal named and dismissed, with the evidence that shows why."""

    service: str
    reason: str
    evidence_ids: list[str] = Field(default_factory=list)


class Draft(BaseModel):
    """An unverified answer: a diagnosis (complex route) or a short answer (simple route)."""

    kind: Literal["diagnosis", "answer"] = "diagnosis"
    summary: str
    # Derived from healthy/root_cause when left out (an older client's draft).
    verdict: Verdict | None = Field(
        default=None,
        description="incident (something is wrong now), healthy (nothing abnormal now) or inconclusive "
        "(key sources failed or returned nothing)",
    )
    healthy: bool = False
    root_cause: RootCause | None = None
    findings: list[Finding] = Field(default_factory=list)
    recommendations: list[Recommendation] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    ruled_out: list[RuledOut] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_verdict(self) -> Draft:
        """`healthy` and `verdict` say one thing: an older client reads `healthy`, a newer `verdict`."""
        if self.verdict is None:
            named: Verdict = "incident" if self.root_cause is not None else "inconclusive"
            self.verdict = "healthy" if self.healthy else named
        self.healthy = self.verdict == "healthy"
        return self


class Repair(BaseModel):
    """A repair decision: a corrected draft, or targeted calls to gather more evidence first."""

    draft: Draft | None = None
    calls: list[PlannedCall] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Turn:
    """One prior turn of the session, as the session-context store keeps it."""

    query: str
    summary: str = ""
    root_cause_service: str | None = None

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> Turn:
        service = raw.get("root_cause_service")
        return cls(
            query=str(raw.get("query", "")),
            summary=str(raw.get("summary", "")),
            root_cause_service=str(service) if service else None,
        )


@dataclass(frozen=True, slots=True)
class RouteRequest:
    query: str
    flow: str
    history: Sequence[Turn] = ()
    services: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class EvidenceRef:
    """What an analyst may know of an evidence item: never its raw data."""

    id: str
    source: str
    tool: str
    title: str
    status: str
    summary: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Discovery:
    """What discovery calls found, read from their structured results (names only, bounded)."""

    metrics: Mapping[str, Sequence[Mapping[str, str]]] = field(default_factory=dict)
    log_services: Sequence[str] = ()
    tables: Mapping[str, Sequence[str]] = field(default_factory=dict)
    runbooks: Sequence[str] = ()
    services: Sequence[str] = ()
    # Typed metric reads discovery chose (`read_metric` arguments), best first.
    reads: Sequence[Mapping[str, Any]] = ()


# A lookup plans its query, then (when every result was empty) a wider read of the same ask, then
# the log streams whose names hold the question's words (when the wider read found nothing either).
LOOKUP_ROUNDS = 3


@dataclass(frozen=True, slots=True)
class PlanRequest:
    route: Route
    round: int  # 1 = discovery, 2 = targeted queries after discovery
    tool_names: Sequence[str]
    datasources: Sequence[str]
    remaining_tool_calls: int
    evidence: Sequence[EvidenceRef] = ()
    digest: Digest = field(default_factory=Digest)
    discovery: Discovery = field(default_factory=Discovery)
    now: str = ""  # ISO-8601 UTC of the world: a time the question states is read against it


@dataclass(frozen=True, slots=True)
class DiagnoseRequest:
    route: Route
    evidence: Sequence[EvidenceRef]
    digest: Digest
    now: str  # ISO-8601 UTC of the world
    services: Sequence[str] = ()  # every service name discovery found


@dataclass(frozen=True, slots=True)
class RepairRequest:
    route: Route
    draft: Draft
    violations: Sequence[str]
    evidence: Sequence[EvidenceRef]
    digest: Digest
    now: str
    remaining_tool_calls: int
    may_gather: bool


class ModelMeter(Protocol):
    """Per-run counters a model-backed analyst charges; raises BudgetExhausted when spent."""

    def charge_model_call(self) -> None: ...
    def add_tokens(self, tokens: int) -> None: ...


class Analyst(Protocol):
    """One implementation per analyst kind; every step returns the same typed output."""

    name: str

    async def route(self, request: RouteRequest, meter: ModelMeter) -> Route: ...
    async def plan(self, request: PlanRequest, meter: ModelMeter) -> Plan: ...
    async def diagnose(self, request: DiagnoseRequest, meter: ModelMeter) -> Draft: ...
    async def repair(self, request: RepairRequest, meter: ModelMeter) -> Repair: ...


class AnalystUnavailable(Exception):
    """A model-backed step could not answer (HTTP error, timeout, malformed output, saturation).

    `reason` is a short safe code (e.g. `timeout`, `http_error`, `malformed_output`, `saturated`).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BudgetExhausted(Exception):
    """A run budget (model calls, tokens, tool calls) is spent; the run ends in fallback."""

    def __init__(self, budget: str) -> None:
        super().__init__(budget)
        self.budget = budget
