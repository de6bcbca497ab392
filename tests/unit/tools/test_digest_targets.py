"""Scrape targets that are not up, as facts in Prometheus' own words (tools/digest/targets.py), and
how the rule analyst says them: a target down with a firing alert has its cause stated even when its
`up` series is too young to show a move (a Prometheus started a minute ago)."""

from __future__ import annotations

from datetime import UTC, datetime

from graph.analysts.base import DiagnoseRequest, EvidenceRef, Route
from graph.analysts.rules.diagnose import diagnose_digest
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.build import build_digest

NOW = datetime(2027, 1, 15, 10, 0, tzinfo=UTC)
REFUSED = 'Get "http://10.0.0.7:9104/metrics": dial tcp 10.0.0.7:9104: connect: connection refused'


def _targets(*targets: dict[str, object]) -> Evidence:
    return Evidence(
        "metrics-4",
        EvidenceSource.METRICS,
        "list_targets",
        "Scrape targets",
        "",
        {"targets": list(targets)},
        {"health": "down"},
        EvidenceStatus.OK,
    )


def _target(health: str, error: str, instance: str = "ledger-db-2") -> dict[str, object]:
    return {
        "labels": {"job": "mysqld", "instance": instance},
        "health": health,
        "scrape_url": "http://10.0.0.7:9104/metrics",
        "last_error": error,
        "last_scrape": "2027-01-15T09:59:58Z",
    }


def _alerts() -> Evidence:
    alert = {
        "labels": {
            "alertname": "TargetDown",
            "job": "mysqld",
            "instance": "ledger-db-2",
            "severity": "critical",
        },
        "annotations": {"summary": "mysqld target ledger-db-2 is down"},
        "state": "active",
        "starts_at": "2027-01-15T09:59:50Z",
    }
    return Evidence(
        "alerts-1", EvidenceSource.ALERTS, "list_alerts", "Active alerts", "", {"alerts": [alert]}, {},
        EvidenceStatus.OK,
    )  # fmt: skip


def test_a_target_down_becomes_an_error_pattern_of_its_system_in_prometheus_words() -> None:
    digest = build_digest([_targets(_target("down", REFUSED), _target("up", "", "ledger-db-1"))], now=NOW)
    [pattern] = digest.log_patterns
    assert (pattern.service, pattern.host, pattern.level, pattern.origin) == (
        "mysqld",
        "ledger-db-2",
        "error",
        "scrape",
    )
    assert pattern.example == REFUSED and pattern.last_seen == "2027-01-15T09:59:58Z"


def test_a_target_without_an_error_or_up_says_nothing() -> None:
    digest = build_digest([_targets(_target("unknown", ""), _target("up", "old error"))], now=NOW)
    assert digest.log_patterns == []


def test_the_cause_of_a_target_down_is_its_failed_scrape_not_a_slow_dependency() -> None:
    evidence = [_alerts(), _targets(_target("down", REFUSED))]
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="a scrape target is down: which one and why?"),
        evidence=[
            EvidenceRef(e.id, e.source.value, e.tool, e.title, e.status.value, e.summary) for e in evidence
        ],
        digest=build_digest(evidence, now=NOW),
        now="2027-01-15T10:00:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    assert draft.root_cause.service == "mysqld"
    assert 'scrape failing ("Get' in draft.root_cause.statement
    # "connection refused" is how the target looks from outside: the target is down, not slow.
    assert draft.root_cause.category == "unclassified"
    scrape = [f for f in draft.findings if f.statement.startswith("scrape of mysqld failing")]
    assert scrape and scrape[0].evidence_ids == ["metrics-4"]
