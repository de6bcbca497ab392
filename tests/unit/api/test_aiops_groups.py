"""AIOps groups: each under its own identity, as real exporters and community rules label alerts."""

from __future__ import annotations

from typing import Any

from api.aiops_flow import group_alerts


def _alert(**labels: str) -> dict[str, Any]:
    return {"labels": labels, "status": "firing"}


def test_alert_with_only_alertname_instance_severity_is_a_group_not_dropped() -> None:
    [group] = group_alerts([_alert(alertname="HostHighCpuLoad", instance="db1:9100", severity="warning")], [])
    assert (group.service, group.identity) == ("db1:9100", "instance=db1:9100")


def test_alert_without_any_identity_label_is_grouped_by_alertname_and_host() -> None:
    groups = group_alerts([_alert(alertname="NodeDown", hostname="h1"), _alert(alertname="Watchdog")], [])
    assert sorted((g.alertname, g.service) for g in groups) == [("NodeDown", "h1"), ("Watchdog", None)]


def test_exporter_job_groups_its_instances_and_scopes_by_job_or_instance() -> None:
    alerts = [
        _alert(alertname="HostFilesystemAlmostFull", job="node", instance="db1:9100", mountpoint="/data"),
        _alert(alertname="HostFilesystemAlmostFull", job="node", instance="db2:9100", mountpoint="/data"),
        _alert(alertname="PostgresTooManyConnections", job="postgres", instance="pg1:9187", datname="orders"),
    ]
    groups = group_alerts(alerts, [])
    assert [(g.alertname, g.identity, g.count) for g in groups] == [
        ("HostFilesystemAlmostFull", "job=node", 2),
        ("PostgresTooManyConnections", "job=postgres", 1),
    ]
    assert [g.alertname for g in group_alerts(alerts, ["postgres"])] == ["PostgresTooManyConnections"]
    assert [g.count for g in group_alerts(alerts, ["db2:9100"])] == [1]


def test_same_workload_name_in_two_namespaces_is_two_groups() -> None:
    alerts = [
        _alert(alertname="PodCrashLooping", namespace="shop", pod="checkout-7d9f8b6c5d-x2x7k"),
        _alert(alertname="PodCrashLooping", namespace="staging", pod="checkout-6c8d7b5f4c-a1b2c"),
    ]
    groups = group_alerts(alerts, [])
    assert {g.service for g in groups} == {"checkout"} and len(groups) == 2


def test_a_groups_machines_are_kept_so_one_machine_is_named_in_its_question() -> None:
    one = _alert(alertname="HostFilesystemAlmostFull", job="node", instance="web-1", mountpoint="/spool")
    [group] = group_alerts([one], [])
    assert (group.identity, group.instances) == ("job=node", ("web-1",))
    two = _alert(alertname="HostFilesystemAlmostFull", job="node", instance="web-2", mountpoint="/spool")
    [both] = group_alerts([one, two], [])
    assert both.instances == ("web-1", "web-2")
