"""The AIOps scan: group the active alerts, diagnose each group through the same graph, judge the report.

One run (`agent_flow = AI_OPS`) holds every group's steps and tool calls. The deterministic rule
evaluation of the whole report is stored under `self_evaluation.aiops_rule_evaluation`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from api.chat_use_case import ChatUseCase, OpenedRun
from api.engine import DiagnosisEngine
from api.keep_alive import next_or_idle
from api.run_control import SHUTDOWN, RunControl, end_reason
from api.run_recorder import RunRecorder
from api.shutdown import SHUTDOWN_CODE, SHUTDOWN_MESSAGE, StreamShutdown
from graph.runner import RunFailed, RunRequest, RunResult
from persistence.runs import RunStore
from persistence.tables import AgentFlow, RunOutcome, RunStatus
from tools.digest.labels import service_of
from tools.evidence_store import RunEvidence
from tools.toolbox import Toolbox

log = logging.getLogger("superbiz.aiops")

DEFAULT_INSTRUCTION = "Scan the active alerts and diagnose each group."


@dataclass(frozen=True, slots=True)
class AlertGroupRef:
    alertname: str
    service: str | None
    count: int
    severity: str | None


def group_alerts(alerts: Sequence[Mapping[str, Any]], services: Sequence[str]) -> list[AlertGroupRef]:
    """Firing alerts grouped by (alertname, service), every instance counted; optionally scoped."""
    counts: dict[tuple[str, str | None], list[Mapping[str, Any]]] = {}
    for alert in alerts:
        labels = alert.get("labels") or {}
        if str(alert.get("status", "firing")) not in ("firing", "active"):
            continue
        service = service_of(labels)
        if services and service not in services:
            continue
        counts.setdefault((str(labels.get("alertname", "unnamed")), service), []).append(labels)
    groups = [
        AlertGroupRef(name, service, len(items), items[0].get("severity"))
        for (name, service), items in counts.items()
    ]
    order = {"critical": 0, "page": 0, "error": 1, "warning": 2}
    return sorted(groups, key=lambda g: (order.get(str(g.severity), 3), -g.count, g.alertname))


def evaluate_report(
    groups: Sequence[AlertGroupRef],
    results: Sequence[tuple[AlertGroupRef, RunResult | None]],
    runbooks_available: bool,
) -> dict[str, Any]:
    """Deterministic checks of the AIOps report (stored, never streamed)."""
    addressed = {(g.alertname, g.service) for g, r in results if r is not None}
    unaddressed = [
        {"alertname": g.alertname, "service": g.service}
        for g in groups
        if (g.alertname, g.service) not in addressed
    ]
    backed, cited, unsupported = True, True, 0
    for _, result in results:
        if result is None:
            continue
        payload = result.content.get("payload", {})
        for finding in payload.get("findings", []) or []:
            if not finding.get("evidence_ids"):
                unsupported += 1
        root = payload.get("root_cause")
        if root and not payload.get("findings"):
            backed = False
        recs = payload.get("recommendations", []) or []
        if runbooks_available and root and recs and not any(r.get("runbook") for r in recs):
            cited = False
    checks = {
        "every_alert_addressed": not unaddressed,
        "root_causes_backed_by_evidence": backed and unsupported == 0,
        "runbooks_cited": cited,
        "no_unsupported_claims": unsupported == 0,
    }
    return {"passed": all(checks.values()), "checks": checks, "unaddressed": unaddressed[:50]}


class AiOpsUseCase:
    """Built once in the composition root; shares the run store, the runner and the toolbox."""

    def __init__(
        self,
        *,
        chat: ChatUseCase,
        runs: RunStore,
        engine: DiagnosisEngine,
        toolbox: Toolbox,
        max_groups: int,
        evidence_budget_bytes: int,
        max_status_events: int,
    ) -> None:
        self._chat = chat
        self._runs = runs
        self._engine = engine
        self._toolbox = toolbox
        self._max_groups = max_groups
        self._budget = evidence_budget_bytes
        self._max_status = max_status_events

    async def open(
        self,
        *,
        session_id: str | None,
        instruction: str | None,
        services: list[str],
        principal: str | None,
    ) -> OpenedRun:
        return await self._chat.open(
            session_id=session_id,
            query=instruction or DEFAULT_INSTRUCTION,
            principal=principal,
            flow=AgentFlow.AI_OPS,
            services=services,
        )

    def start(self, opened: OpenedRun, queue: asyncio.Queue[dict[str, Any]]) -> RunControl:
        control = RunControl(opened.run_id, opened.slot)
        return self._chat.registry.start(opened.run_id, self._scan(opened, queue, control), control)

    async def _scan(
        self, opened: OpenedRun, queue: asyncio.Queue[dict[str, Any]], control: RunControl
    ) -> None:
        async def no_status(code: str, message: str) -> None:
            return None

        recorder = RunRecorder(
            run_id=opened.run_id,
            status_sink=no_status,
            max_status_events=self._max_status,
            metrics=self._chat.metrics,
            runs=self._runs,
            flow=opened.flow.value,
        )
        results: list[tuple[AlertGroupRef, RunResult | None]] = []
        finish = recorder.finish
        last: dict[str, Any] = {"type": "error", "data": "The alert scan could not be completed."}
        try:
            scan = await self._toolbox.call("list_alerts", {}, RunEvidence(budget_bytes=self._budget))
            await recorder.on_tool(scan, {})
            groups = group_alerts(scan.data.get("alerts", []), opened.services)
            for group in groups[: self._max_groups]:
                result = await self._diagnose(opened, group, recorder)
                results.append((group, result))
                await queue.put({"type": "content", "data": _group_report(group, result)})
            evaluation = evaluate_report(groups, results, "search_runbooks" in self._toolbox.tool_names())
            summary = _summary(groups, results, scan.status.value)
            control.work_stopped()  # every group diagnosed: only the terminal write is left
            await queue.put({"type": "content", "data": summary})
            stored = await self._chat.registry.durable(
                finish(
                    status=RunStatus.SUCCESS,
                    outcome=RunOutcome.SUCCESS,
                    answer={"content_type": "aiops_report", "payload": summary},
                    answer_preview=summary["summary"],
                    content_type="aiops_report",
                    route="aiops",
                    self_evaluation={"aiops_rule_evaluation": evaluation},
                    orchestration_trace=_combined_trace(results),
                )
            )
            recorder.mark_finished()
            if stored:
                last = {"type": "done"}
        except asyncio.CancelledError:
            control.work_stopped()  # `_diagnose` cancelled the group's graph already
            with contextlib.suppress(Exception):
                await self._chat.registry.durable(
                    finish(
                        status=RunStatus.CANCELLED,
                        cancel_reason=control.cancel_reason or "CANCELLED",
                        orchestration_trace=_combined_trace(results),
                    )
                )
            raise
        except Exception:
            log.exception("AIOps run %s failed", opened.run_id)
            control.work_stopped()
            with contextlib.suppress(Exception):
                await self._chat.registry.durable(
                    finish(
                        status=RunStatus.FAILED,
                        outcome=RunOutcome.FAILED,
                        failure_code="INTERNAL_ERROR",
                        orchestration_trace=_combined_trace(results),
                    )
                )
        finally:
            control.work_stopped()
            recorder.close()
        # Reached unless cancelled: the stream always gets its last frame, done or error.
        await queue.put(last)

    async def _diagnose(
        self, opened: OpenedRun, group: AlertGroupRef, recorder: RunRecorder
    ) -> RunResult | None:
        where = f" on {group.service}" if group.service else ""
        request = RunRequest(
            run_id=opened.run_id,
            session_id=opened.session_id,
            query=f"Alert {group.alertname} is firing{where}. What is the root cause?",
            history=[],
            flow=AgentFlow.AI_OPS.value,
            services=[group.service] if group.service else [],
            principal=opened.principal,
        )
        handle = self._engine.start(request, observer=recorder)
        try:
            return await handle.result()
        except asyncio.CancelledError:
            await handle.cancel("CANCELLED")
            raise
        except RunFailed:
            return None


def _group_report(group: AlertGroupRef, result: RunResult | None) -> dict[str, Any]:
    head = {
        "alertname": group.alertname,
        "service": group.service,
        "count": group.count,
        "severity": group.severity,
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


def _combined_trace(results: Sequence[tuple[AlertGroupRef, RunResult | None]]) -> dict[str, Any]:
    """The first group's orchestration (what the trace page draws) and one line per group."""
    traces = [r.trace for _, r in results if r is not None]
    combined: dict[str, Any] = dict(traces[0]) if traces else {"version": 1, "transitions": [], "path": []}
    combined["flow"] = "AI_OPS"
    combined["degraded"] = any(t.get("degraded") for t in traces)
    combined["groups"] = [
        {
            "alertname": group.alertname,
            "service": group.service,
            "final_node": result.trace.get("final_node") if result else None,
            "termination_reason": result.trace.get("termination_reason") if result else "FAILED",
            "degraded": bool(result.trace.get("degraded")) if result else True,
        }
        for group, result in results
    ]
    return combined


_WAKE: dict[str, Any] = {"type": "wake"}  # never sent: wakes the stream's wait on shutdown


async def aiops_frames(
    opened: OpenedRun,
    use_case: AiOpsUseCase,
    *,
    cancel_grace_s: float,
    queue_size: int,
    ping_s: float,
    shutdown: StreamShutdown,
) -> AsyncGenerator[dict[str, Any] | None]:
    """The legacy `message` frames: metadata first, then content messages, then done or error
    (code SHUTDOWN when the server stops); None after every `ping_s` of silence (a keep-alive)."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=queue_size)
    control = use_case.start(opened, queue)

    def wake() -> None:
        with contextlib.suppress(asyncio.QueueFull):  # a full queue wakes the stream anyway
            queue.put_nowait(_WAKE)

    shutdown.listen(wake)
    finished = False
    try:
        yield {"type": "metadata", "data": {"sessionId": opened.session_id, "runId": opened.run_id}}
        while True:
            if shutdown.requested and queue.empty():  # reports already made go out first
                control.cancel(SHUTDOWN)
                finished = True
                yield {"type": "error", "code": SHUTDOWN_CODE, "data": SHUTDOWN_MESSAGE}
                break
            message = await next_or_idle(queue, ping_s)
            if message is None:
                yield None
                continue
            if message is _WAKE:
                continue
            if message["type"] in ("done", "error"):
                finished = True
            yield message
            if finished:
                break
    finally:
        if not finished:
            control.cancel(end_reason())
            await control.wait(cancel_grace_s * 2)  # the graph's grace, then the run's terminal write
