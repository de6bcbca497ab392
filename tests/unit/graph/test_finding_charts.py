"""The payload's charts: the cited metric evidence's own points, the digest's marks, nothing for a
finding without metric evidence, bounded."""

from __future__ import annotations

from typing import Any

from graph.analysts.base import Draft, Finding
from graph.nodes.composer.charts import TOTAL_POINTS, finding_charts, thin, unit_of
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.labels import iso_from_unix
from tools.facts import AlertGroup, Digest, MetricAnomaly

T0 = 1_796_030_000.0
LABELS = {"service": "api", "instance": "api-1:8080"}


def evidence(evidence_id: str, source: EvidenceSource, data: dict[str, Any], title: str = "t") -> Evidence:
    return Evidence(evidence_id, source, "read_metric", title, "", data, {}, EvidenceStatus.OK)


def series(metric: str, values: list[float], labels: dict[str, str] = LABELS) -> dict[str, Any]:
    return {"metric": metric, "labels": labels, "samples": [[T0 + 60 * i, v] for i, v in enumerate(values)]}


def anomaly(evidence_id: str, metric: str, **changes: Any) -> MetricAnomaly:
    fields: dict[str, Any] = {
        "evidence_id": evidence_id, "metric": metric, "labels": LABELS, "service": "api", "baseline": 0.2,
        "recent": 3.0, "peak": 4.0, "change_at": iso_from_unix(T0 + 240), "direction": "up", "ratio": 15.0,
        "score": 9.0,
    }  # fmt: skip
    return MetricAnomaly(**(fields | changes))


def draft(*findings: list[str]) -> Draft:
    return Draft(
        summary="s", findings=[Finding(statement=f"f{n}", evidence_ids=ids) for n, ids in enumerate(findings)]
    )


def test_a_chart_draws_the_evidence_points_with_the_digest_marks() -> None:
    values = [0.2, 0.2, 0.21, 0.2, 3.0, 4.0, 3.1, 3.0]
    latency = evidence(
        "metrics-1", EvidenceSource.METRICS, {"series": [series("latency_seconds_p99", values)]}
    )
    logs = evidence("logs-1", EvidenceSource.LOGS, {"entries": [{"line": "boom"}]})
    started = iso_from_unix(T0 + 300)
    alert = AlertGroup("alerts-1", "Slow", "api", "critical", "firing", 1, [], started, "slow")
    digest = Digest(anomalies=[anomaly("metrics-1", "latency_seconds_p99")], alert_groups=[alert])
    charts = finding_charts(draft(["metrics-1", "logs-1"], ["logs-1"]), [latency, logs], digest)
    assert len(charts) == 1  # the logs evidence draws nothing
    chart = charts[0]
    assert chart["evidence_id"] == "metrics-1" and chart["unit"] == "s"
    (drawn,) = chart["series"]
    assert drawn["points"] == latency.data["series"][0]["samples"]  # the evidence's own points
    assert drawn["name"] == "service=api instance=api-1:8080"
    assert drawn["baseline"] == 0.2 and drawn["peak"] == [T0 + 300, 4.0]
    assert drawn["change_at"] == T0 + 240
    assert chart["alert_window"] == [T0 + 300, None]  # still firing: open-ended
    assert finding_charts(draft(["logs-1"]), [latency, logs], digest) == []


def test_a_counter_read_as_a_rate_is_drawn_as_that_rate() -> None:
    counter = evidence(
        "metrics-2", EvidenceSource.METRICS, {"series": [series("requests_total", [0, 60, 120, 600])]}
    )
    digest = Digest(anomalies=[anomaly("metrics-2", "rate(requests_total)")])
    (chart,) = finding_charts(draft(["metrics-2"]), [counter], digest)
    assert chart["series"][0]["metric"] == "rate(requests_total)" and chart["unit"] == "/s"
    assert chart["series"][0]["points"] == [[T0 + 60, 1.0], [T0 + 120, 1.0], [T0 + 180, 8.0]]


def test_points_are_bounded_to_a_subset_that_keeps_the_extremes() -> None:
    values = [float(i % 50) for i in range(1_000)]
    values[777] = 999.0
    many = [
        evidence(f"metrics-{n}", EvidenceSource.METRICS, {"series": [series("g", values)]}) for n in range(8)
    ]
    charts = finding_charts(draft([item.id for item in many]), many, Digest())
    points = [p for chart in charts for s in chart["series"] for p in s["points"]]
    assert len(points) <= TOTAL_POINTS + 8 * 4
    original = many[0].data["series"][0]["samples"]
    kept = charts[0]["series"][0]["points"]
    assert all(p in original for p in kept) and [T0 + 60 * 777, 999.0] in kept
    assert kept[0] == original[0] and kept[-1] == original[-1]
    assert thin(original[:10], 20) == original[:10]


def test_units_come_from_the_metric_naming_conventions() -> None:
    assert unit_of("rate(node_network_receive_bytes_total)", "") == "B/s"
    assert unit_of("http_errors_per_second", "") == "/s"
    assert unit_of("db_pool_pending_threads", "") == ""
    assert unit_of("disk_used_ratio", "") == "ratio"
