"""The lab's verdicts on plain answers (no stack): what counts as right, wrong, invented and error."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lab.judge import judge
from tests.lab.service import Answer


def _answer(root: dict[str, Any] | None, *, healthy: bool = False, outcome: str | None = "SUCCESS") -> Answer:
    payload = {"summary": "s", "healthy": healthy, "root_cause": root}
    content = {"content_type": "diagnosis_report", "payload": payload}
    return Answer("q", 200, 0.1, events=["metadata", "content", "done"], outcome=outcome, content=content)


def _root(service: str, statement: str) -> dict[str, Any]:
    return {"service": service, "category": "c", "statement": statement, "confidence": 0.8}


def test_a_cause_naming_a_culprit_token_is_right() -> None:
    answer = _answer(_root("node", "mountpoint /tmp/sb-lab-x/spool on web-1 is 94% full"))
    assert judge(answer, ("/tmp/sb-lab-x/spool",)).verdict == "right"


def test_a_cause_naming_another_component_or_nothing_is_wrong() -> None:
    assert judge(_answer(_root("web-1", "cpu saturation")), ("pg-1",)).verdict == "wrong"
    assert judge(_answer(None), ("pg-1",)).verdict == "wrong"


@pytest.mark.parametrize(
    "root",
    [
        _root("alertmanager", "pg-1 is the origin"),
        _root("pg-1", "alertmanager_notifications_total rose on pg-1"),
        _root("pg-1", "go_goroutines of the exporter on pg-1 grew"),
    ],
)
def test_blaming_the_monitoring_stack_is_wrong_even_when_the_culprit_is_named(root: dict[str, Any]) -> None:
    judgement = judge(_answer(root), ("pg-1",))
    assert judgement.verdict == "wrong" and judgement.blames_monitoring


def test_a_cause_where_none_is_expected_is_invented_and_none_is_right() -> None:
    assert judge(_answer(_root("web-1", "cpu saturation")), ()).verdict == "invented"
    assert judge(_answer(None), ()).verdict == "right"
    assert judge(_answer(_root("web-1", "cpu"), healthy=True), ()).verdict == "right"


def test_an_answer_without_a_done_event_or_with_a_5xx_is_an_error() -> None:
    assert judge(_answer(None, outcome=None), ()).verdict == "error"
    failed = Answer("q", 503, 0.1)
    assert judge(failed, ("pg-1",)).verdict == "error"


def test_naming_an_alert_the_lab_did_not_induce_is_aside_not_invented() -> None:
    answer = _answer(_root("web-1", "web-1 is the most likely origin (cpu saturation)."))
    busy_host = [{"alertname": "HostHighCpuLoad", "instance": "web-1", "severity": "warning"}]
    assert judge(answer, (), foreign=busy_host).verdict == "aside"
    # Another subject than the firing alert's, or a value only inside a longer name, is still invented.
    assert judge(answer, (), foreign=[{"alertname": "X", "instance": "pg-1"}]).verdict == "invented"
    assert judge(answer, (), foreign=[{"alertname": "X", "instance": "web"}]).verdict == "invented"
    # A fault's question is judged by its culprit whatever else fires.
    assert judge(answer, ("/checkout",), foreign=busy_host).verdict == "wrong"
