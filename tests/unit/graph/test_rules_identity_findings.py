"""Findings keep the labels an SRE needs: where an alert fires, its value, its silence; a filesystem
series names its mountpoint even when it is the only one."""

from __future__ import annotations

from graph.analysts.rules import findings as say
from tools.facts import AlertGroup, MetricAnomaly


def _group(**overrides: object) -> AlertGroup:
    values: dict[str, object] = {
        "evidence_id": "alerts-1",
        "alertname": "HostFilesystemAlmostFull",
        "service": "node",
        "severity": "critical",
        "status": "firing",
        "count": 1,
        "instances": ["db1:9100"],
        "first_started": "2026-01-01T10:30:00Z",
        "summary": "Filesystem almost full",
        "identities": ["job=node instance=db1:9100 mountpoint=/data device=/dev/sdb1"],
        "value": "93.4",
    }
    return AlertGroup(**{**values, **overrides})  # type: ignore[arg-type]


def test_alert_finding_names_instance_mountpoint_device_and_value_not_only_the_job() -> None:
    statement = say.alert_finding("node", [_group()]).statement
    assert "on instance=db1:9100 mountpoint=/data device=/dev/sdb1" in statement
    assert "value 93.4" in statement
    assert "job=node" not in statement  # the job is the name already; the where says more


def test_alert_finding_says_silenced_with_comment_and_end_and_inhibited() -> None:
    until = "2026-01-01T12:00:00Z"
    silenced = _group(silenced=1, muted=1, silence_comment="disk swap tonight", silenced_until=until)
    statement = say.alert_finding("node", [silenced]).statement
    assert 'silenced until 2026-01-01T12:00:00Z ("disk swap tonight")' in statement
    assert "inhibited" in say.alert_finding("node", [_group(inhibited=1, muted=1)]).statement


def test_alert_grouped_by_instance_alone_repeats_nothing() -> None:
    group = _group(
        alertname="HostHighCpuLoad", service="db1:9100", identities=["instance=db1:9100"], value=None
    )
    statement = say.alert_finding("db1:9100", [group]).statement
    assert statement == "Firing alerts on db1:9100: HostHighCpuLoad (critical, since 2026-01-01T10:30:00Z)."


def test_a_lone_filesystem_series_still_names_its_mountpoint() -> None:
    labels = {"job": "node", "instance": "db1:9100", "mountpoint": "/data", "device": "/dev/sdb1"}
    anomaly = MetricAnomaly(
        evidence_id="metrics-1", metric="node_filesystem_avail_bytes", labels=labels, service="node",
        baseline=5e9, recent=1e8, peak=5e9, change_at="2026-01-01T10:30:00Z", direction="down", ratio=0.02,
        score=30.0,
    )  # fmt: skip
    found = say.distinguishing_labels(anomaly, [anomaly])
    assert found == ("mountpoint=/data", "device=/dev/sdb1")
    statement = say.anomaly_finding(anomaly, found).statement
    series = "node_filesystem_avail_bytes{mountpoint=/data, device=/dev/sdb1}"
    assert statement.startswith(f"{series} on db1:9100 fell")
