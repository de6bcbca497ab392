"""The rule-based analyst: deterministic, offline, and the step every model failure degrades to."""

from __future__ import annotations

from graph.analysts.base import (
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
from graph.analysts.rules.answer import answer_question
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.introspection import with_database_cause
from graph.analysts.rules.lookup import plan_lookup
from graph.analysts.rules.plan import plan_discovery, plan_followup, plan_targeted
from graph.analysts.rules.repair import repair_draft
from graph.analysts.rules.route import route_question
from tools.prometheus.discovery import DEFAULT_STACK, MonitoringStack


class RuleAnalyst:
    """Routes by intent, plans discovery then targeted calls, ranks suspects from the digest;
    `stack` is the monitoring stack (`monitoring_jobs` setting), never a suspect unless asked about."""

    name = "rules"

    def __init__(self, stack: MonitoringStack = DEFAULT_STACK) -> None:
        self._stack = stack

    async def route(self, request: RouteRequest, meter: ModelMeter) -> Route:
        return route_question(request)

    async def plan(self, request: PlanRequest, meter: ModelMeter) -> Plan:
        if request.route.route == "lookup":
            return plan_lookup(request)
        rounds = {1: plan_discovery, 2: plan_targeted, 3: plan_followup}
        return rounds.get(request.round, _no_plan)(request)

    async def diagnose(self, request: DiagnoseRequest, meter: ModelMeter) -> Draft:
        if request.route.route == "simple":
            return answer_question(request)
        return with_database_cause(diagnose_digest(request, self._stack), request.digest)

    async def repair(self, request: RepairRequest, meter: ModelMeter) -> Repair:
        return repair_draft(request)


def _no_plan(request: PlanRequest) -> Plan:
    return Plan()
