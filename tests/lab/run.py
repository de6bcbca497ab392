"""One pass of the lab: for each scenario, induce its fault, wait for its alert, ask, judge, undo and
wait for the alert to clear. Every wait is on a condition with a bound; every fault is undone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.lab.judge import Judgement, judge
from tests.lab.probes import LabTimeout, active_alerts, alert_active, wait_until
from tests.lab.scenarios import SCENARIOS, Scenario
from tests.lab.service import Answer, ask, guard_record, lab_service
from tests.lab.stack import LabStack

FIRE_BOUND_S = 90.0  # the slowest rule (CPU: a 10 s rate, then 5 s pending) fires well within this
CLEAR_BOUND_S = 90.0
INVESTIGATIONS_BOUND_S = 120.0  # the webhook's last runs finish (each is one AIOps scan)
# A fault holds until Alertmanager's notification of it has started an investigation (group_wait 1 s;
# the questions take a second, so a fault undone right after them could resolve first).
STARTED_BOUND_S = 20.0
QUIET_BOUND_S = 60.0
FOREIGN_QUIET_BOUND_S = 15.0  # per fault: on a machine busy for longer, waiting does not help


@dataclass
class Row:
    scenario: str
    question: str
    answer: Answer
    judgement: Judgement
    firing: tuple[str, ...] = ()  # alert names active in Alertmanager when the question was asked
    culprits: tuple[str, ...] = ()  # what a right answer names; empty: no cause is expected

    @property
    def expects_cause(self) -> bool:
        return bool(self.culprits)


@dataclass
class FaultRecord:
    """What Prometheus/Alertmanager showed of one fault: when its alert fired and when it cleared."""

    scenario: str
    kind: str
    alert: str
    labels: dict[str, str] = field(default_factory=dict)
    fired_s: float | None = None
    cleared_s: float | None = None
    problem: str = ""


@dataclass(frozen=True)
class Investigation:
    """A run Alertmanager's webhook started (GET /api/investigations, flow AI_OPS)."""

    query: str  # the alert group it was started for
    status: str
    root_cause: str | None


@dataclass
class LabReport:
    rows: list[Row] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)
    investigations: list[Investigation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    start_s: float = 0.0
    total_s: float = 0.0


async def run_scenarios(
    stack: LabStack, client: httpx.AsyncClient, scenarios: tuple[Scenario, ...], report: LabReport
) -> None:
    for scenario in scenarios:
        if scenario.fault is None:
            await _quiet(stack, report, scenario.name)
            await _ask_all(
                client, scenario.name, scenario.questions, (), report, alertmanager=stack.alertmanager_url
            )
        else:
            await _fault_scenario(stack, client, scenario, report)


async def _fault_scenario(
    stack: LabStack, client: httpx.AsyncClient, scenario: Scenario, report: LabReport
) -> None:
    assert scenario.fault is not None
    fault = scenario.fault()
    record = FaultRecord(scenario.name, fault.kind, fault.alert)
    report.faults.append(record)
    culprits = _tokens(stack, scenario.culprits)
    am = stack.alertmanager_url
    # An alert the lab did not induce (a busy host's CPU) competes with the fault for the answer: start
    # from a quiet Alertmanager when the machine allows, within a bound.
    await _quiet(stack, report, scenario.name, bound_s=FOREIGN_QUIET_BOUND_S)
    try:
        # A fault must start from a clear alert, or "it fired" would prove nothing (a busy host's CPU).
        await _wait(lambda: not alert_active(am, fault.alert), QUIET_BOUND_S, f"{fault.alert} clear before")
    except LabTimeout:
        report.notes.append(f"{scenario.name}: {fault.alert} was already firing before the fault")
    started_before = await _started(client, fault.alert)
    try:
        fault.induce(stack)
        record.fired_s = await _wait(
            lambda: alert_active(am, fault.alert), FIRE_BOUND_S, f"{fault.alert} fires"
        )
        record.labels = next((a for a in active_alerts(am) if a.get("alertname") == fault.alert), {})
        overrides = {question: _tokens(stack, tokens) for question, tokens in scenario.strict.items()}
        await _ask_all(
            client,
            scenario.name,
            scenario.questions,
            culprits,
            report,
            alertmanager=am,
            overrides=overrides,
            induced=fault.alert,
        )
        await _investigation_started(client, fault.alert, started_before, report, scenario.name)
    except LabTimeout as timeout:
        record.problem = str(timeout)
    finally:
        fault.undo(stack)
    try:
        record.cleared_s = await _wait(
            lambda: not alert_active(am, fault.alert), CLEAR_BOUND_S, f"{fault.alert} clears"
        )
    except LabTimeout as timeout:
        record.problem = (record.problem + "; " if record.problem else "") + str(timeout)
        return
    if scenario.recovered_questions:
        await _ask_all(
            client, f"{scenario.name} recovered", scenario.recovered_questions, (), report, alertmanager=am
        )


def _tokens(stack: LabStack, tokens: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(token.format(spool=str(stack.spool)) for token in tokens)


async def _quiet(stack: LabStack, report: LabReport, name: str, *, bound_s: float = QUIET_BOUND_S) -> None:
    """The healthy baseline needs a quiet Alertmanager; a busy host (CPU) can make it noisy."""
    try:
        await _wait(lambda: not active_alerts(stack.alertmanager_url), bound_s, "no alert active")
    except LabTimeout:
        names = sorted({a.get("alertname", "?") for a in active_alerts(stack.alertmanager_url)})
        report.notes.append(f"{name}: started while {', '.join(names)} fired (not induced by the lab)")


async def _ask_all(
    client: httpx.AsyncClient,
    scenario: str,
    questions: tuple[str, ...],
    culprits: tuple[str, ...],
    report: LabReport,
    *,
    alertmanager: str,
    overrides: Mapping[str, tuple[str, ...]] | None = None,
    induced: str | None = None,
) -> None:
    overrides = overrides or {}
    for question in questions:
        alerts = await asyncio.to_thread(active_alerts, alertmanager)
        firing = tuple(sorted({alert.get("alertname", "?") for alert in alerts}))
        foreign = [alert for alert in alerts if alert.get("alertname") != induced]
        answer = await ask(client, question)
        expected = overrides.get(question, culprits)
        judgement = judge(answer, expected, foreign=foreign)
        report.rows.append(Row(scenario, question, answer, judgement, firing, expected))
        if judgement.verdict != "right":
            report.notes.append(f"{scenario} / {question}: guard: {await guard_record(client, answer)}")


async def _wait(condition: Callable[[], bool], bound_s: float, what: str) -> float:
    # The polls block on urllib: run them off the event loop the in-process service shares.
    return await asyncio.to_thread(wait_until, condition, bound_s=bound_s, what=what)


async def _webhook_runs(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    """The AIOps runs of the lab's principal, newest first: the ones Alertmanager's webhook started."""
    runs = (await client.get("/api/investigations", params={"limit": 100})).json()["data"]
    return [run for run in runs if run["agentFlow"] == "AI_OPS"]


async def _started(client: httpx.AsyncClient, alert: str) -> int:
    """How many investigations Alertmanager's webhook has started for `alert` so far."""
    return sum(1 for run in await _webhook_runs(client) if f"Alertmanager: {alert} firing" in run["query"])


async def _investigation_started(
    client: httpx.AsyncClient, alert: str, before: int, report: LabReport, scenario: str
) -> None:
    deadline = time.monotonic() + STARTED_BOUND_S
    while await _started(client, alert) <= before:
        if time.monotonic() > deadline:
            report.notes.append(
                f"{scenario}: no investigation of {alert} started within {STARTED_BOUND_S:.0f} s"
            )
            return
        await asyncio.sleep(0.5)


async def _investigations(client: httpx.AsyncClient, report: LabReport) -> list[Investigation]:
    """The runs the lab's Alertmanager started through the webhook, once none is still running (bounded:
    what is still running at the bound is reported as it stands)."""
    deadline = time.monotonic() + INVESTIGATIONS_BOUND_S
    while True:
        started = await _webhook_runs(client)
        if all(run["status"] != "RUNNING" for run in started) or time.monotonic() > deadline:
            break
        await asyncio.sleep(1.0)
    if any(run["status"] == "RUNNING" for run in started):
        report.notes.append(f"investigations still running after {INVESTIGATIONS_BOUND_S:.0f} s")
    return [Investigation(run["query"], run["status"], run.get("rootCause")) for run in reversed(started)]


async def run_lab(scenarios: tuple[Scenario, ...] = SCENARIOS) -> LabReport:
    """Start the stack, run every scenario through the service, stop everything; the report says what
    happened (a stack that fails to start raises, with the processes' log tails)."""
    started = time.monotonic()
    report = LabReport()
    stack = LabStack()
    try:
        try:
            await asyncio.to_thread(stack.start)
        except (LabTimeout, OSError) as failure:
            raise RuntimeError(f"lab stack did not start: {failure}\n{stack.log_tail()}") from failure
        report.start_s = time.monotonic() - started
        async with lab_service(stack) as client:
            await run_scenarios(stack, client, scenarios, report)
            report.investigations = await _investigations(client, report)
    finally:
        await asyncio.to_thread(stack.close)
    report.total_s = time.monotonic() - started
    return report
