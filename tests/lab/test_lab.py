"""The live fault lab in CI: the stack starts; every fault shows in Alertmanager and is undone (its
alert clears) and starts an investigation through the service's Alertmanager webhook; every question
gets a terminal answer (a done event, no 5xx); every fault's questions get a released root cause that
names the culprit (the instance, mountpoint, endpoint, database or application: tests/lab/judge.py) and
never the monitoring stack; and no question without a fault (the healthy baseline, the recovered
incident) gets an invented cause. Every scenario's verdict is asserted. The table (`make lab`) is
printed in the CI log, passed or not.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from tests.conftest import IN_CI
from tests.lab.report import render
from tests.lab.run import LabReport, run_lab
from tests.lab.stack import missing_requirements

pytestmark = [pytest.mark.lab, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def report(request: pytest.FixtureRequest) -> LabReport:
    missing = missing_requirements()
    if missing:
        message = f"the lab needs {', '.join(missing)} (.ci/run installs them)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    result = asyncio.run(run_lab())
    # The table goes to the CI log, passed or not: past pytest's capture, as `make lab` prints it.
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        print("\n" + render(result), flush=True)
    return result


def test_lab_induces_eight_faults_of_five_kinds_plus_healthy_and_recovered(report: LabReport) -> None:
    assert len(report.faults) >= 8
    assert len({fault.kind for fault in report.faults}) >= 5
    scenarios = {row.scenario for row in report.rows}
    assert "healthy" in scenarios and any(name.endswith("recovered") for name in scenarios)


def test_every_fault_fires_its_alert(report: LabReport) -> None:
    for fault in report.faults:
        assert fault.fired_s is not None, (fault.scenario, fault.problem)
        assert fault.labels.get("alertname") == fault.alert


def test_every_fault_is_undone(report: LabReport) -> None:
    for fault in report.faults:
        assert fault.cleared_s is not None, (fault.scenario, fault.problem)


def test_every_fault_starts_an_investigation_through_alertmanagers_webhook(report: LabReport) -> None:
    """Alertmanager's receiver points at the service: each fault's firing group started an AIOps run
    (its query names the alert), stored and finished like any run, with a released report."""
    for fault in report.faults:
        started = [i for i in report.investigations if f"Alertmanager: {fault.alert} firing" in i.query]
        assert started, (fault.scenario, fault.alert, [i.query for i in report.investigations])
    assert report.investigations
    for investigation in report.investigations:
        assert investigation.status in ("SUCCESS", "FALLBACK"), investigation


def test_every_question_gets_a_terminal_answer(report: LabReport) -> None:
    asked = sum(1 for _ in report.rows)
    assert asked >= 12
    for row in report.rows:
        assert row.answer.http_status == 200, (row.scenario, row.question, row.answer.http_status)
        assert row.answer.events[-1:] == ["done"], (row.scenario, row.question)
        assert row.judgement.verdict != "error", (row.scenario, row.question)


def test_every_fault_question_names_its_culprit(report: LabReport) -> None:
    asked = [row for row in report.rows if row.expects_cause]
    assert len(asked) >= len(report.faults) >= 8
    # The whole statement and the run's outcome: a miss must be diagnosable from the CI log alone.
    missed = [
        (
            row.scenario,
            row.question,
            row.judgement.verdict,
            row.answer.outcome,
            row.answer.root_cause,
            row.firing,
        )
        for row in asked
        if row.judgement.verdict != "right"
    ]
    assert not missed, missed


def test_no_cause_is_invented_where_none_was_induced(report: LabReport) -> None:
    # Healthy and recovered: no cause, or (asked while an alert the lab did not induce fired, such as a
    # busy host's CPU) the subject of that alert, never one made up.
    quiet = [row for row in report.rows if not row.expects_cause]
    assert {row.scenario for row in quiet} >= {"healthy", "checkout-500 recovered"}
    invented = [
        (row.scenario, row.question, row.judgement.verdict, row.judgement.named, row.firing)
        for row in quiet
        if row.judgement.verdict not in ("right", "aside")
    ]
    assert not invented, invented


def test_healthy_and_recovered_get_no_cause_while_nothing_fires(report: LabReport) -> None:
    quiet = [row for row in report.rows if not row.expects_cause and not row.firing]
    assert quiet, "no healthy question was asked with Alertmanager quiet"
    for row in quiet:
        assert row.judgement.verdict == "right", (row.scenario, row.question, row.judgement.named)


def test_the_monitoring_stack_is_never_the_root_cause(report: LabReport) -> None:
    for row in report.rows:
        assert not row.judgement.blames_monitoring, (row.scenario, row.question, row.judgement.named)
