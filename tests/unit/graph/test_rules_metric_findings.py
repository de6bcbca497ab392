"""Metric findings of the rule analyst: which series they name, their units, and storage trouble."""

from __future__ import annotations

from typing import Any

import pytest

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules import findings as say
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.suspects import rank_suspects
from graph.nodes.evidence_guard.checks import check_draft
from graph.nodes.evidence_guard.corpus import build_corpus, run_entities
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.facts import Digest, LogPattern, MetricAnomaly


def _anomaly(
    metric: str,
    labels: dict[str, str],
    *,
    baseline: float,
    recent: float,
    peak: float,
    evidence_id: str = "metrics-1",
    at: str = "2026-01-01T10:30:00Z",
    score: float = 30.0,
) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id=evidence_id,
        metric=metric,
        labels=labels,
        service=labels.get("job"),
        baseline=baseline,
        recent=recent,
        peak=peak,
        change_at=at,
        direction="up" if recent > baseline else "down",
        ratio=recent / baseline,
        score=score,
    )


def _errors(service: str, message: str, evidence_id: str = "logs-1") -> LogPattern:
    return LogPattern(
        evidence_id=evidence_id,
        service=service,
        level="ERROR",
        template=message,
        count=40,
        first_seen="2026-01-01T10:31:00Z",
        last_seen="2026-01-01T11:00:00Z",
        example=message,
    )


def _request(digest: Digest, question: str = "why is checkout failing?") -> DiagnoseRequest:
    route = Route(route="complex", resolved_query=question)
    return DiagnoseRequest(route=route, evidence=[], digest=digest, now="2026-01-01T11:00:00Z")


RISING_500 = _anomaly(
    "rate(http_requests_total)",
    {"job": "checkout", "instance": "10.0.0.7:9100", "code": "500", "method": "POST"},
    baseline=0.04,
    recent=20.07,
    peak=32.48,
    score=50.0,
)
FALLING_200 = _anomaly(
    "rate(http_requests_total)",
    {"job": "checkout", "instance": "10.0.0.7:9100", "code": "200", "method": "POST"},
    baseline=41.5,
    recent=3.25,
    peak=2.75,
    score=40.0,
)


def test_labels_that_tell_series_apart_are_named_but_not_the_service_or_instance() -> None:
    other_service = _anomaly(
        "rate(http_requests_total)",
        {"job": "web", "instance": "10.0.0.9:9100", "code": "500", "method": "POST"},
        baseline=0.1,
        recent=9.0,
        peak=9.5,
    )
    peers = [RISING_500, FALLING_200, other_service]
    assert say.distinguishing_labels(RISING_500, peers) == ("code=500",)
    assert say.distinguishing_labels(FALLING_200, peers) == ("code=200",)
    # Alone, a series needs no label to be told apart.
    assert say.distinguishing_labels(RISING_500, [RISING_500]) == ()


def test_at_most_two_distinguishing_labels_are_named() -> None:
    a = _anomaly("queue_depth", {"job": "q", "a": "1", "b": "2", "c": "3"}, baseline=1, recent=9, peak=9)
    b = _anomaly("queue_depth", {"job": "q", "a": "4", "b": "5", "c": "6"}, baseline=1, recent=9, peak=9)
    assert say.distinguishing_labels(a, [a, b]) == ("a=1", "b=2")


def test_rates_carry_a_per_second_unit_and_gauges_none() -> None:
    rate = say.anomaly_finding(RISING_500, ("code=500",)).statement
    assert rate.startswith("rate(http_requests_total){code=500} on 10.0.0.7:9100 rose")
    assert "from 0.04 /s to 20.07 /s (peak 32.48 /s)" in rate
    gauge = _anomaly("queue_depth", {"job": "q"}, baseline=2, recent=90, peak=95)
    assert "/s" not in say.anomaly_finding(gauge).statement


def test_rising_errors_and_falling_successes_of_one_metric_are_both_stated() -> None:
    digest = Digest(
        anomalies=[RISING_500, FALLING_200],
        log_patterns=[_errors("checkout", "request failed: internal error")],
    )
    draft = diagnose_digest(_request(digest))
    statements = [f.statement for f in draft.findings]
    assert any("{code=500}" in s and " rose " in s for s in statements)
    assert any("{code=200}" in s and " fell " in s for s in statements)


def _metrics_evidence(anomalies: list[MetricAnomaly]) -> Evidence:
    series: list[dict[str, Any]] = [
        {"metric": "http_requests_total", "labels": a.labels, "samples": [[1767261600, 1.0]]}
        for a in anomalies
    ]
    return Evidence(
        id="metrics-1",
        source=EvidenceSource.METRICS,
        tool="query_promql",
        title="PromQL range query",
        summary="",
        data={"series": series},
        query={},
        status=EvidenceStatus.OK,
    )


def test_labelled_rate_findings_pass_the_evidence_guard() -> None:
    digest = Digest(anomalies=[RISING_500, FALLING_200])
    evidence = [_metrics_evidence([RISING_500, FALLING_200])]
    draft = diagnose_digest(_request(digest))
    metric_findings = [f for f in draft.findings if "rate(" in f.statement]
    assert len(metric_findings) == 2
    corpus = build_corpus(evidence, digest)
    result = check_draft(
        draft.model_copy(update={"findings": metric_findings, "ruled_out": []}),
        corpus,
        entities=run_entities(evidence),
        runbook_text="",
    )
    assert [v for v in result.violations if v.startswith("finding")] == []


def test_a_wrong_rate_value_is_still_caught_by_the_guard() -> None:
    digest = Digest(anomalies=[RISING_500])
    evidence = [_metrics_evidence([RISING_500])]
    finding = say.anomaly_finding(RISING_500, ("code=500",))
    forged = finding.model_copy(update={"statement": finding.statement.replace("20.07 /s", "27.5 /s")})
    draft = diagnose_digest(_request(digest)).model_copy(update={"findings": [forged], "ruled_out": []})
    result = check_draft(draft, build_corpus(evidence, digest), entities=set(), runbook_text="")
    assert any("27.5" in v for v in result.violations)


VOLUME = _anomaly(
    "kubelet_volume_stats_used_bytes",
    {"job": "ledger-writer", "persistentvolumeclaim": "journal-ledger-writer-0"},
    baseline=1.1e11,
    recent=2e11,
    peak=2e11,
    score=50.0,
)


@pytest.mark.parametrize(
    "metric",
    [
        "kubelet_volume_stats_used_bytes",
        "node_filesystem_avail_bytes",
        "container_fs_usage_bytes",
        "node_filesystem_files_free",
        "pg_database_size_bytes",
        "storage_used_ratio",
        "inode_usage",
    ],
)
def test_storage_metrics_are_trouble_even_when_the_step_is_small(metric: str) -> None:
    # Free or available space is trouble when it falls; used space when it rises.
    before, after = (200.0, 110.0) if ("avail" in metric or "free" in metric) else (110.0, 200.0)
    moderate = _anomaly(metric, {"job": "ledger-writer"}, baseline=before, recent=after, peak=after)
    ranking = rank_suspects(Digest(anomalies=[moderate]))
    assert [s.service for s in ranking.ranked] == ["ledger-writer"]


@pytest.mark.parametrize("metric", ["node_filesystem_avail_bytes", "FreeStorageSpace", "http_5xx_errors"])
def test_a_move_the_name_calls_good_news_is_a_recovery_not_trouble(metric: str) -> None:
    better = (100.0, 400.0) if "rror" not in metric else (400.0, 100.0)
    recovered = _anomaly(
        metric, {"job": "ledger-writer"}, baseline=better[0], recent=better[1], peak=better[1]
    )
    assert rank_suspects(Digest(anomalies=[recovered])).ranked == []


def test_a_filling_volume_is_cited_and_the_category_is_disk_full() -> None:
    digest = Digest(
        anomalies=[VOLUME],
        log_patterns=[
            _errors("ledger-writer", "Failed to append batch java.io.IOException: No space left on device"),
            _errors("api", "commit failed: dependency ledger-writer returned 503", "logs-2"),
        ],
    )
    draft = diagnose_digest(_request(digest, "transfers are failing, why?"))
    assert draft.root_cause is not None
    assert draft.root_cause.service == "ledger-writer"
    assert draft.root_cause.category == "disk_full"
    assert any(
        f.statement.startswith("kubelet_volume_stats_used_bytes on ledger-writer rose")
        for f in draft.findings
    )


def test_a_filling_volume_alone_reads_as_a_full_disk() -> None:
    draft = diagnose_digest(_request(Digest(anomalies=[VOLUME])))
    assert draft.root_cause is not None
    assert draft.root_cause.category == "disk_full"


def test_a_quoted_slice_keeps_the_callers_quotes_paired() -> None:
    """Inner double quotes never leave one open or end the slice: the guard reads quoted claims
    between pairs of quotes, and an unpaired one would run into the next sentence."""
    from graph.analysts.rules.findings import quote

    cut = quote('instances.update principal="tf@example.iam" resource="instances/db" request.settings', 60)
    assert cut == "instances.update principal="
    assert quote('msg="query failed" index=books status=429') == 'msg="query failed" index=books status=429'
    assert quote('key=a value="b"') == "key=a value="
