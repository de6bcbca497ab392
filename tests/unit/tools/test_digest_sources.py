"""Alert groups, SQL summaries, runbook passages, case clues and gaps; bounds and determinism."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest import DigestLimits, build_digest

NOW = datetime(2031, 1, 5, 8, 0, tzinfo=UTC)


def _item(
    evidence_id: str,
    source: EvidenceSource,
    data: dict[str, Any],
    status: EvidenceStatus = EvidenceStatus.OK,
    summary: str = "s",
) -> Evidence:
    return Evidence(evidence_id, source, "tool", "t", summary, data, {}, status)


def _alert(name: str, starts: str, status: str = "firing", **labels: str) -> dict[str, Any]:
    return {
        "labels": {"alertname": name, **labels},
        "annotations": {"description": f"{name} d"},
        "startsAt": starts,
        "endsAt": None,
        "status": status,
    }


def test_alerts_group_by_name_and_service_keeping_every_instance() -> None:
    alerts = [
        _alert("DiskPressure", "2031-01-05T07:40:00Z", app="vault", node="n1", severity="warning"),
        _alert("DiskPressure", "2031-01-05T07:35:00Z", app="vault", node="n2", severity="critical"),
        _alert("DiskPressure", "2031-01-05T07:41:00Z", app="vault", node="n3", severity="warning"),
        _alert("DiskPressure", "2031-01-05T07:00:00Z", app="cache", node="n9"),
        _alert("Old", "2031-01-05T01:00:00Z", status="resolved", app="vault", severity="critical"),
    ]
    groups = build_digest([_item("alerts-1", EvidenceSource.ALERTS, {"alerts": alerts})], now=NOW)
    first, second, resolved = groups.alert_groups
    assert (first.alertname, first.service, first.count) == ("DiskPressure", "vault", 3)
    assert first.instances == ["n1", "n2", "n3"]
    assert first.severity == "critical" and first.first_started == "2031-01-05T07:35:00Z"
    assert first.summary == "DiskPressure d" and first.evidence_id == "alerts-1"
    assert (second.service, second.count, second.severity) == ("cache", 1, None)
    assert (resolved.alertname, resolved.status) == ("Old", "resolved")


def test_alert_instances_and_groups_are_bounded() -> None:
    alerts = [_alert("Flap", "2031-01-05T07:00:00Z", service="s", pod=f"p{i}") for i in range(50)]
    alerts += [_alert(f"A{i}", "2031-01-05T07:00:00Z", service="s") for i in range(30)]
    limits = DigestLimits(max_instances=4, max_alert_groups=5)
    digest = build_digest([_item("a", EvidenceSource.ALERTS, {"alerts": alerts})], now=NOW, limits=limits)
    assert len(digest.alert_groups) == 5
    assert digest.alert_groups[0].count == 50 and len(digest.alert_groups[0].instances) == 4


def test_sql_summary_names_common_values_extremes_and_first_rows() -> None:
    data = {
        "datasource": "ledger",
        "statement": "SELECT holder, mode, waited_s FROM locks",
        "columns": ["holder", "mode", "waited_s"],
        "rows": [
            ["batch", "exclusive", 340],
            ["api", "exclusive", 12],
            ["api", "exclusive", 9],
            ["cron", "share", 1],
        ],
    }
    [summary] = build_digest([_item("sql-1", EvidenceSource.SQL, data)], now=NOW).sql
    assert (summary.evidence_id, summary.datasource, summary.row_count) == ("sql-1", "ledger", 4)
    assert summary.columns == ["holder", "mode", "waited_s"]
    assert "mode=exclusive (3 of 4 rows)" in summary.highlights
    assert "max(waited_s)=340" in summary.highlights and "min(waited_s)=1" in summary.highlights
    assert "holder=batch" in summary.highlights


def test_knowledge_cases_and_gaps_are_kept_short_and_ranked() -> None:
    passages = {
        "passages": [
            {"file": "a.md", "heading": "Low", "text": "x " * 900, "score": 1.0},
            {"file": "b.md", "heading": "High", "text": "restart it", "score": 7.5},
        ]
    }
    cases = {
        "cases": [
            {
                "case_id": "c1",
                "query": "q",
                "answer": "pool leak " * 100,
                "root_cause_service": "pay",
                "category": None,
                "diagnosis_id": "r",
                "score": 0.8,
            }
        ]
    }
    evidence = [
        _item("knowledge-1", EvidenceSource.KNOWLEDGE, passages),
        _item("cases-1", EvidenceSource.CASES, cases),
        _item("logs-1", EvidenceSource.LOGS, {}, EvidenceStatus.UNAVAILABLE, "logs not configured"),
        _item("sql-2", EvidenceSource.SQL, {}, EvidenceStatus.REJECTED, "only reads are allowed"),
        _item("metrics-1", EvidenceSource.METRICS, {"series": []}, EvidenceStatus.EMPTY),
    ]
    digest = build_digest(evidence, now=NOW)
    assert [p.heading for p in digest.runbooks] == ["High", "Low"]
    assert len(digest.runbooks[1].excerpt) <= DigestLimits().excerpt_chars
    [clue] = digest.cases
    assert (clue.case_id, clue.root_cause_service, clue.score) == ("c1", "pay", 0.8)
    assert len(clue.excerpt) <= DigestLimits().excerpt_chars
    assert [(g.evidence_id, g.status) for g in digest.gaps] == [
        ("logs-1", "UNAVAILABLE"),
        ("sql-2", "REJECTED"),
    ]
    assert digest.gaps[0].reason == "logs not configured"


def test_digest_is_deterministic() -> None:
    alerts = [_alert("X", "2031-01-05T07:00:00Z", service="s", pod=f"p{i}") for i in range(3)]
    lines = [
        {"ts": "2031-01-05T07:59:00Z", "labels": {"service": "s"}, "message": f"m {i}"} for i in range(10)
    ]
    evidence = [
        _item("a", EvidenceSource.ALERTS, {"alerts": alerts}),
        _item("l", EvidenceSource.LOGS, {"lines": lines}),
    ]
    assert build_digest(evidence, now=NOW) == build_digest(evidence, now=NOW)


def test_a_pod_label_alone_names_its_workload() -> None:
    from tools.digest.labels import service_of

    assert service_of({"pod": "rate-engine-7d9f8b6c4d-x2k4p"}) == "rate-engine"
    assert service_of({"pod": "ledger-db-2"}) == "ledger-db"
    assert service_of({"pod": "cache-redis"}) is None  # no hash: not cut
    assert service_of({"service": "billing", "pod": "x-7d9f8b6c4d-x2k4p"}) == "billing"


def test_a_name_matches_as_a_whole_word_where_a_hyphen_is_part_of_the_word() -> None:
    from tools.digest.labels import name_pattern

    assert name_pattern("api").search("timeout calling api: 503")
    assert not name_pattern("api").search("timeout calling api-gateway")
    assert not name_pattern("api").search("the rapid-api plugin")
    assert not name_pattern("api").search("apis are down")
    assert name_pattern("pay.v2").search("pay.v2 failed") and not name_pattern("pay.v2").search("payxv2")
