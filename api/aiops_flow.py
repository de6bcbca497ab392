"""The AIOps flow over the run lifecycle: group the active alerts, diagnose each group through the
same graph, judge the report.

One run (`agent_flow = AI_OPS`) holds every group's steps and tool calls; its orchestration trace
joins the groups' traces. The deterministic rule evaluation of the whole report is stored under
`self_evaluation.aiops_rule_evaluation`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from api.aiops_evaluation import evaluate_released
from api.diagnoser import Diagnoser
from api.run_lifecycle import Done, OpenedRun, Part, Run, RunLifecycle
from graph.recorder import TRACE_VERSION
from graph.runner import RunFailed, RunRequest, RunResult
from persistence.tables import AgentFlow, RunOutcome, RunStatus
from tools.digest.labels import instance_of
from tools.evidence_store import RunEvidence
from tools.identity import DEFAULT_IDENTITY, IdentityLabels, identity_of

DEFAULT_INSTRUCTION = "Scan the active alerts and diagnose each group."
GroupResults = list[tuple["AlertGroupRef", RunResult | None]]


@dataclass(frozen=True, slots=True)
class AlertGroupRef:
    alertname: str
    service: str | None
    count: int
    severity: str | None
    # `job=node instance=db1:9100`: the group's own identity (tools.identity), empty when it has none.
    identity: str = ""
    # The machines its alerts fire on: one says where an exporter job's alert is (`job=node` on web-1).
    instances: tuple[str, ...] = ()


def group_alerts(
    alerts: Sequence[Mapping[str, Any]],
    services: Sequence[str],
    identity: IdentityLabels = DEFAULT_IDENTITY,
) -> list[AlertGroupRef]:
    """Firing alerts grouped by (alertname, identity), every instance counted; optionally scoped.

    Each group sits under its own identity (service, app, job, workload, else the instance); an
    alert with no identity label at all is grouped by alertname and instance, never dropped.
    """
    counts: dict[tuple[str, str], tuple[str | None, list[Mapping[str, Any]]]] = {}
    for alert in alerts:
        labels = alert.get("labels") or {}
        if str(alert.get("status", "firing")) not in ("firing", "active"):
            continue
        ident = identity_of(labels, identity)
        instance = instance_of(labels)
        service = ident.name or instance
        named = {service, *(v for _, v in (*ident.primary, *ident.qualifiers))}
        if services and not named.intersection(services):
            continue
        primary = " ".join(f"{k}={v}" for k, v in ident.primary)
        primary = primary or (f"instance={instance}" if instance else "")
        key = (str(labels.get("alertname", "unnamed")), primary)
        counts.setdefault(key, (service, []))[1].append(labels)
    groups = [
        AlertGroupRef(
            name,
            service,
            len(items),
            items[0].get("severity"),
            primary,
            tuple(sorted({i for labels in items if (i := instance_of(labels))})),
        )
        for (name, primary), (service, items) in counts.items()
    ]
    order = {"critical": 0, "page": 0, "error": 1, "warning": 2}
    return sorted(groups, key=lambda g: (order.get(str(g.severity), 3), -g.count, g.alertname))


def evaluate_report(
    groups: Sequence[AlertGroupRef],
    results: Sequence[tuple[AlertGroupRef, RunResult | None]],
    runbooks_available: bool,
) -> dict[str, Any]:
    """Deterministic checks of the AIOps report (stored, never streamed), from each group's released
    payload (`api.aiops_evaluation`): a group is addressed only by a report about it."""
    released = [(group, result.content.get("payload") if result else None) for group, result in results]
    return evaluate_released(groups, released, runbooks_available)


class AiOpsFlow:
    """Built once in the composition root; shares the lifecycle and the diagnoser with chat."""

    def __init__(self, *, lifecycle: RunLifecycle, diagnoser: Diagnoser, max_groups: int) -> None:
        self.lifecycle = lifecycle
        self._diagnoser = diagnoser
        self._max_groups = max_groups

    async def open(
        self,
        *,
        session_id: str | None,
        instruction: str | None,
        services: list[str],
        principal: str | None,
    ) -> OpenedRun:
        return await self.lifecycle.open(
            session_id=session_id,
            query=instruction or DEFAULT_INSTRUCTION,
            principal=principal,
            flow=AgentFlow.AI_OPS,
            services=services,
        )

    def start(self, opened: OpenedRun) -> Run:
        # A report per group, the summary and the last event; no statuses (the legacy frames have none).
        return self.lifecycle.start(opened, self._scan, statuses=False, max_events=self._max_groups + 2)

    async def _scan(self, run: Run) -> None:
        toolbox = self._diagnoser.toolbox
        results: GroupResults = []
        run.partial_trace = lambda: combined_trace(results)
        evidence = RunEvidence(budget_bytes=self._diagnoser.evidence_budget_bytes)
        scan = await toolbox.call("list_alerts", {}, evidence)
        await run.recorder.on_tool(scan, {})
        groups = group_alerts(scan.data.get("alerts", []), run.opened.services, toolbox.limits.identity)
        for group in groups[: self._max_groups]:
            result = await self._diagnose(run.opened, group, run)
            results.append((group, result))
            await run.channel.publish(Part(_group_report(group, result)))
        evaluation = evaluate_report(groups, results, "search_runbooks" in toolbox.tool_names())
        summary = _summary(groups, results, scan.status.value)
        run.work_stopped()  # every group diagnosed: only the terminal write is left
        await run.channel.publish(Part(summary))
        stored = await run.finish(
            RunStatus.SUCCESS,
            outcome=RunOutcome.SUCCESS,
            answer={"content_type": "aiops_report", "payload": summary},
            answer_preview=summary["summary"],
            content_type="aiops_report",
            route="aiops",
            self_evaluation={"aiops_rule_evaluation": evaluation},
            orchestration_trace=combined_trace(results),
        )
        if not stored:  # finished elsewhere meanwhile (swept): the stream ends in an error
            raise RunFailed("RUN_NOT_RUNNING")
        await run.channel.publish(Done())

    async def _diagnose(self, opened: OpenedRun, group: AlertGroupRef, run: Run) -> RunResult | None:
        where = f" on {group.service}" if group.service else ""
        identity = group.identity
        if len(group.instances) == 1 and f"instance={group.instances[0]}" not in identity:
            # An exporter job's alert on one machine (`job=node` on web-1): the machine is the subject.
            identity = f"{identity} instance={group.instances[0]}".strip()
        if identity and identity.split("=", 1)[-1] != group.service:
            where += f" ({identity})"  # namespace/workload or job+instance: which one exactly
        request = RunRequest(
            run_id=opened.run_id,
            session_id=opened.session_id,
            query=f"Alert {group.alertname} is firing{where}. What is the root cause?",
            history=[],
            flow=AgentFlow.AI_OPS.value,
            services=[group.service] if group.service else [],
            principal=opened.principal,
        )
        try:
            return await self._diagnoser.start(request, observer=run.recorder).result()
        except RunFailed:
            return None


def _group_report(group: AlertGroupRef, result: RunResult | None) -> dict[str, Any]:
    head = {
        "alertname": group.alertname,
        "service": group.service,
        "count": group.count,
        "severity": group.severity,
        "identity": group.identity,
    }
    if result is None:
        return {"group": head, "outcome": "FAILED", "report": None}
    return {"group": head, "outcome": result.outcome, "report": result.content.get("payload")}


def _summary(
    groups: Sequence[AlertGroupRef],
    results: Sequence[tuple[AlertGroupRef, RunResult | None]],
    scan_status: str,
) -> dict[str, Any]:
    if scan_status not in ("OK", "EMPTY"):
        text = "The alert source could not be read; no alert groups were diagnosed."
    elif not groups:
        text = "No firing alerts: no incident found."
    else:
        causes = []
        for group, result in results:
            root = (result.content.get("payload", {}) or {}).get("root_cause") if result else None
            cause = root.get("service") if isinstance(root, dict) else None
            causes.append(
                f"{group.alertname} ({group.service or 'unknown service'}): "
                f"{'root cause ' + cause if cause else 'no confirmed root cause'}"
            )
        text = f"{len(groups)} alert group(s) firing. " + "; ".join(causes)
    return {
        "summary": text[:2000],
        "groups": len(groups),
        "diagnosed": len(results),
        "alert_source": scan_status,
    }


def combined_trace(results: Sequence[tuple[AlertGroupRef, RunResult | None]]) -> dict[str, Any]:
    """The AIOps run's own trace: the groups' walks one after another (each from `__start__` to
    `__end__`), their counts summed, and one line per group."""
    traces = [r.trace for _, r in results if r is not None]
    timings: dict[str, float] = {}
    for trace in traces:
        for node, ms in trace.get("node_timings_ms", {}).items():
            timings[node] = round(timings.get(node, 0.0) + ms, 3)
    return {
        "version": TRACE_VERSION,
        "flow": "AI_OPS",
        "transitions": list(itertools.chain.from_iterable(t.get("transitions", []) for t in traces)),
        "path": list(itertools.chain.from_iterable(t.get("path", []) for t in traces)),
        "final_node": traces[-1].get("final_node") if traces else None,
        "termination_reason": traces[-1].get("termination_reason") if traces else None,
        "degraded": any(t.get("degraded") for t in traces),
        "node_timings_ms": timings,
        **{key: sum(int(t.get(key, 0)) for t in traces) for key in _SUMMED},
        "groups": [
            {
                "alertname": group.alertname,
                "service": group.service,
                "identity": group.identity,
                "final_node": result.trace.get("final_node") if result else None,
                "termination_reason": result.trace.get("termination_reason") if result else "FAILED",
                "degraded": bool(result.trace.get("degraded")) if result else True,
            }
            for group, result in results
        ],
    }


_SUMMED = ("evidence_retry_count", "repair_count", "model_calls", "tokens", "tool_calls")
