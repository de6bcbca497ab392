"""A system whose metrics stopped while its own lines keep coming is not shown down: its scrape fails,
and the verdict is inconclusive, naming the missing metrics. A system whose lines stopped too, or that
began to fail with its metrics, is an incident."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest

_LABELS = {"job": "payments-api", "instance": "10.42.7.15:9464"}


def _digest(*, logging_until: str, new_errors: bool = False) -> Digest:
    up = replace(
        move("up", "payments-api", "2026-03-01T10:20:00Z", _LABELS),
        direction="down",
        baseline=1.0,
        recent=0.0,
    )
    silent = replace(
        move("hikaricp_connections_active", "payments-api", "2026-03-01T10:21:00Z", _LABELS), event="silent"
    )
    down = alert(
        "TargetDown", "payments-api", "2026-03-01T10:30:00Z", _LABELS, "One or more targets are unreachable."
    )
    served = replace(
        lines("payments-api", "charge captured id=ch_8a7 amount=10295 currency=GBP", "2026-03-01T08:00:00Z"),
        level="info",
        count=400,
        last_seen=logging_until,
    )
    patterns = [served]
    if new_errors:
        patterns.append(
            lines("payments-api", "HikariPool-1 - Connection is not available", "2026-03-01T10:20:00Z")
        )
    return Digest(
        anomalies=[up, silent], alert_groups=[replace(down, severity="warning")], log_patterns=patterns
    )


def test_metrics_that_stopped_while_the_lines_keep_coming_are_missing_not_an_outage() -> None:
    draft = diagnose_digest(ask("Is the payments API down?", _digest(logging_until="2026-03-01T10:59:00Z")))
    assert draft.verdict == "inconclusive" and draft.root_cause is None
    assert "Missing: the metrics of payments-api since 2026-03-01T10:20:00Z" in draft.summary
    assert any("kept logging" in f.statement and f.evidence_ids for f in draft.findings)


def test_a_system_whose_lines_stopped_too_or_that_began_to_fail_is_an_incident() -> None:
    quiet = diagnose_digest(ask("Is the payments API down?", _digest(logging_until="2026-03-01T10:19:00Z")))
    failing = diagnose_digest(
        ask("Is the payments API down?", _digest(logging_until="2026-03-01T10:59:00Z", new_errors=True))
    )
    assert quiet.verdict == "incident" and failing.verdict == "incident"
