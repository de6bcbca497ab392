"""Alert groups keyed by identity, as real exporters' alerts are labelled; suppression and labels kept."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest import DigestLimits, build_digest
from tools.identity import IdentityLabels

NOW = datetime(2031, 1, 5, 8, 0, tzinfo=UTC)


def _digest(*alerts: dict[str, Any], limits: DigestLimits | None = None) -> Any:
    item = Evidence("alerts-1", EvidenceSource.ALERTS, "list_alerts", "t", "s", {"alerts": list(alerts)}, {},
                    EvidenceStatus.OK)  # fmt: skip
    return build_digest([item], now=NOW, limits=limits)


def _alert(labels: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"labels": labels, "annotations": extra.pop("annotations", {}), "startsAt": "2031-01-05T07:50:00Z",
            "status": "firing", **extra}  # fmt: skip


def test_alert_with_only_alertname_instance_severity_is_grouped_by_its_instance() -> None:
    labels = {"alertname": "HostHighCpuLoad", "instance": "db1:9100", "severity": "warning"}
    [group] = _digest(_alert(labels)).alert_groups
    assert (group.alertname, group.service, group.status) == ("HostHighCpuLoad", "db1:9100", "firing")
    assert group.identities == ["instance=db1:9100"]


def test_one_rule_by_instance_on_two_hosts_is_two_groups() -> None:
    a = _alert({"alertname": "HostHighCpuLoad", "instance": "db1:9100"})
    b = _alert({"alertname": "HostHighCpuLoad", "instance": "web1:9100"})
    assert sorted(g.service for g in _digest(a, b).alert_groups) == ["db1:9100", "web1:9100"]


def test_alert_without_any_identity_label_groups_by_alertname_and_host() -> None:
    a = _alert({"alertname": "NodeDown", "hostname": "h1"})
    b = _alert({"alertname": "NodeDown", "hostname": "h2"})
    c = _alert({"alertname": "Watchdog"})
    groups = _digest(a, b, c).alert_groups
    assert sorted((g.alertname, g.service or "") for g in groups) == [("NodeDown", "h1"), ("NodeDown", "h2"),
                                                                       ("Watchdog", "")]  # fmt: skip
    assert all(g.status == "firing" for g in groups)


def test_filesystem_alert_keeps_mountpoint_device_instance_value_and_every_label() -> None:
    labels = {"alertname": "HostFilesystemAlmostFull", "job": "node", "instance": "db1:9100",
              "mountpoint": "/data", "device": "/dev/sdb1", "fstype": "ext4"}  # fmt: skip
    annotations = {"summary": "Filesystem almost full", "value": "93.4", "runbook_url": "https://rb/fs"}
    [group] = _digest(_alert(labels, annotations=annotations)).alert_groups
    assert group.identities == ["job=node instance=db1:9100 mountpoint=/data device=/dev/sdb1"]
    assert group.value == "93.4"
    assert group.labels == labels and group.annotations == annotations


def test_silenced_and_inhibited_alerts_are_counted_with_the_silence() -> None:
    labels = {"alertname": "PgTooManyConnections", "job": "postgres", "instance": "pg1:9187"}
    until = "2031-01-05T09:00:00Z"
    silenced = _alert(labels, silenced=True, silenceComment="maintenance", silencedUntil=until)
    inhibited = _alert({**labels, "datname": "orders"}, inhibited=True)
    [group] = _digest(silenced, inhibited).alert_groups
    assert (group.count, group.silenced, group.inhibited, group.muted) == (2, 1, 1, 2)
    assert group.all_muted
    assert (group.silence_comment, group.silenced_until) == ("maintenance", "2031-01-05T09:00:00Z")


def test_a_wholly_muted_group_ranks_after_a_firing_one() -> None:
    muted = _alert({"alertname": "A", "service": "x", "severity": "critical"}, silenced=True)
    live = _alert({"alertname": "B", "service": "y", "severity": "warning"})
    assert [g.alertname for g in _digest(muted, live).alert_groups] == ["B", "A"]


def test_configured_identity_labels_decide_the_groups() -> None:
    limits = DigestLimits(identity=IdentityLabels(labels=("instance",), resources=()))
    a = _alert({"alertname": "Up", "job": "node", "instance": "a:1"})
    b = _alert({"alertname": "Up", "job": "node", "instance": "b:1"})
    assert len(_digest(a, b, limits=limits).alert_groups) == 2
    assert len(_digest(a, b).alert_groups) == 1  # default: job first, both instances in one group
