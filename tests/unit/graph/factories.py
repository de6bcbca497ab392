"""Test factories for the graph: a small in-memory incident, a toolbox over it, and run parts.

The incident: `db` (a database service) exhausts its connections at 09:10; `api` logs errors that
name `db` as its upstream from 09:11; an unrelated `batch` job has had a CPU alert since 03:00.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from graph.analysts.base import (
    Analyst,
    DiagnoseRequest,
    Draft,
    ModelMeter,
    Plan,
    PlanRequest,
    Repair,
    RepairRequest,
    Route,
    RouteRequest,
)
from graph.analysts.llm.prompts import PROMPT_LINES
from graph.analysts.rules import RuleAnalyst
from graph.context import GraphBudgets
from graph.runner import RunParts
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest import build_digest
from tools.evidence_store import RunEvidence, ToolOutcome

NOW = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
ONSET = datetime(2026, 11, 30, 9, 10, tzinfo=UTC)

SOURCE_OF_TOOL = {
    "list_alerts": EvidenceSource.ALERTS,
    "list_metrics": EvidenceSource.METRICS,
    "query_metric": EvidenceSource.METRICS,
    "query_promql": EvidenceSource.METRICS,
    "read_metric": EvidenceSource.METRICS,
    "list_targets": EvidenceSource.METRICS,
    "list_log_streams": EvidenceSource.LOGS,
    "query_logs": EvidenceSource.LOGS,
    "list_tables": EvidenceSource.SQL,
    "query_mysql": EvidenceSource.SQL,
    "list_runbooks": EvidenceSource.KNOWLEDGE,
    "search_runbooks": EvidenceSource.KNOWLEDGE,
    "search_cases": EvidenceSource.CASES,
}


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _series(metric: str, service: str, before: float, after: float) -> dict[str, Any]:
    start = NOW - timedelta(minutes=120)
    samples = []
    for minute in range(0, 121):
        at = start + timedelta(minutes=minute)
        value = after if at >= ONSET else before + (minute % 3) * 0.01 * before
        samples.append([at.timestamp(), value])
    return {"metric": metric, "labels": {"service": service, "instance": f"{service}-0"}, "samples": samples}


def _log_lines(service: str, level: str, message: str, since: datetime, count: int) -> list[dict[str, Any]]:
    return [
        {
            "ts": _iso(since + timedelta(seconds=20 * n)),
            "labels": {"service": service, "level": level},
            "message": message.format(n=n),
        }
        for n in range(count)
    ]


def incident_answers(tool: str, args: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """Data and summary of each tool over the small incident."""
    if tool == "list_alerts":
        alerts = [
            {
                "labels": {"alertname": "ConnectionsExhausted", "service": "db", "severity": "critical"},
                "annotations": {"summary": "db connections exhausted"},
                "startsAt": _iso(ONSET),
                "endsAt": None,
                "status": "firing",
            },
            {
                "labels": {"alertname": "HighCPU", "service": "batch", "severity": "warning"},
                "annotations": {"summary": "batch CPU above 90%"},
                "startsAt": "2026-11-30T03:00:00Z",
                "endsAt": None,
                "status": "firing",
            },
        ]
        return {"alerts": alerts, "total": 2}, "2 alerts"
    if tool == "list_metrics":
        names = ["db_connections_in_use", "http_error_ratio"]
        return {"reads": [], "names": names, "identities": {"service": ["api", "db"]}}, "2 names"
    if tool == "list_targets":
        return {"targets": []}, "0 targets"
    if tool in ("query_promql", "read_metric"):
        if "db_connections" in str(args.get("promql") or args.get("metric")):
            return {"series": [_series("db_connections_in_use", "db", 20, 100)]}, "1 series"
        return {"series": [_series("http_error_ratio", "api", 0.01, 0.4)]}, "1 series"
    if tool == "list_log_streams":
        return {"label": "service", "values": ["api", "batch", "db"]}, "3 values"
    if tool == "query_logs":
        lines = _log_lines(
            "api",
            "ERROR",
            "Upstream db timed out after 5000ms (request {n})",
            ONSET + timedelta(minutes=1),
            30,
        )
        lines += _log_lines("db", "ERROR", "too many connections (limit 100, client {n})", ONSET, 40)
        lines += _log_lines("db", "INFO", "Deployed db-proxy version 4.2.0", ONSET - timedelta(minutes=5), 1)
        wanted = args.get("service")
        level = str(args.get("level") or "").upper()
        kept = [
            line
            for line in lines
            if (not wanted or line["labels"]["service"] == wanted)
            and (not level or line["labels"]["level"].startswith(level[:4]))
        ]
        return {"lines": kept}, f"{len(kept)} log lines"
    if tool == "list_runbooks":
        return {"runbooks": [{"file": "db-connections.md", "heading": "Connections exhausted"}]}, "1"
    if tool == "search_runbooks":
        passage = {
            "file": "db-connections.md",
            "heading": "Connections exhausted",
            "text": "When db connections are exhausted, find the clients holding them.",
            "score": 2.0,
        }
        return {"passages": [passage]}, "1 passage"
    if tool == "search_cases":
        return {"cases": []}, "no similar cases"
    return {}, "nothing"


@dataclass
class FakeToolbox:
    """Toolbox-shaped boundary over canned answers; `delay_s` models a slow backend."""

    answers: Callable[[str, Mapping[str, Any]], tuple[dict[str, Any], str]] = incident_answers
    delay_s: float = 0.0
    failing: set[str] = field(default_factory=set)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    cancelled: int = 0
    datasource_names: list[str] = field(default_factory=list)

    def tool_names(self) -> list[str]:
        return list(SOURCE_OF_TOOL)

    def datasources(self) -> list[str]:
        return list(self.datasource_names)

    async def now(self) -> datetime:
        return NOW

    async def call(self, tool: str, args: Mapping[str, Any], run: Any) -> Evidence:
        self.calls.append((tool, dict(args)))
        try:
            await asyncio.sleep(self.delay_s)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        source = SOURCE_OF_TOOL.get(tool, EvidenceSource.KNOWLEDGE)
        if tool in self.failing:
            data: dict[str, Any] = {}
            summary, status = "source unavailable", EvidenceStatus.UNAVAILABLE
        else:
            data, summary = self.answers(tool, args)
            status = EvidenceStatus.OK if data else EvidenceStatus.EMPTY
        outcome = ToolOutcome(
            source=source,
            tool=tool,
            title=f"{tool} result",
            summary=summary,
            data=data,
            query=dict(args),
            status=status,
            bytes=len(str(data)),
        )
        evidence: Evidence = run.record(outcome)
        return evidence


@dataclass
class ScriptedAnalyst:
    """An analyst whose steps return scripted outputs in order, falling back to the rules."""

    routes: list[Route] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)
    name: str = "scripted"
    rules: RuleAnalyst = field(default_factory=RuleAnalyst)

    async def route(self, request: RouteRequest, meter: ModelMeter) -> Route:
        return self.routes.pop(0) if self.routes else await self.rules.route(request, meter)

    async def plan(self, request: PlanRequest, meter: ModelMeter) -> Plan:
        return self.plans.pop(0) if self.plans else await self.rules.plan(request, meter)

    async def diagnose(self, request: DiagnoseRequest, meter: ModelMeter) -> Draft:
        return self.drafts.pop(0) if self.drafts else await self.rules.diagnose(request, meter)

    async def repair(self, request: RepairRequest, meter: ModelMeter) -> Repair:
        return self.repairs.pop(0) if self.repairs else await self.rules.repair(request, meter)


def run_parts(
    toolbox: Any = None,
    *,
    analyst: Analyst | None = None,
    budgets: GraphBudgets | None = None,
) -> RunParts:
    """Parts of one run: the rules analyst unless another is given, a fresh evidence store."""
    rules = RuleAnalyst()
    return RunParts(
        analyst=analyst or rules,
        rules=rules,
        forbidden_lines=PROMPT_LINES,
        toolbox=toolbox if toolbox is not None else FakeToolbox(),
        evidence=RunEvidence(budget_bytes=1_048_576),
        digest=build_digest,
        budgets=budgets or GraphBudgets(),
    )


@dataclass
class RecordingObserver:
    """Keeps every event it is sent, for assertions."""

    statuses: list[str] = field(default_factory=list)
    nodes: list[tuple[str, str]] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)

    async def on_status(self, code: str) -> None:
        self.statuses.append(code)

    async def on_node(self, node: str, status: str, duration_ms: float, summary: str) -> None:
        self.nodes.append((node, status))

    async def on_tool(self, evidence: Evidence, args: Mapping[str, Any]) -> None:
        self.tools.append(evidence.id)
