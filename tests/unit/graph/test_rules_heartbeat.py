"""An alert that fires by design (the alerting pipeline's dead man's switch: no severity, or its text
says it always fires) is no trouble: a quiet system beside it is healthy. Any other firing alert is
never called healthy."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask
from tools.facts import Digest

PIPELINE = "This is an alert meant to ensure that the entire alerting pipeline is functional."


def _watchdog(severity: str | None, summary: str) -> Digest:
    group = replace(
        alert("Watchdog", "", "2026-02-27T08:00:00Z", {}, summary), service=None, severity=severity
    )
    return Digest(alert_groups=[group])


def test_the_pipelines_heartbeat_is_no_incident() -> None:
    for severity, summary in (
        ("none", "heartbeat"),
        (None, PIPELINE),
        ("info", "This alert is always firing."),
    ):
        draft = diagnose_digest(
            ask("I got paged overnight about search. Is it still broken?", _watchdog(severity, summary))
        )
        assert draft.verdict != "incident" and draft.root_cause is None, (severity, summary)
        assert "Watchdog" not in draft.summary


def test_any_other_firing_alert_is_never_healthy() -> None:
    draft = diagnose_digest(ask("Is it still broken?", _watchdog("warning", "Search latency above 2s")))
    assert draft.verdict != "healthy" and "Watchdog" in draft.summary
