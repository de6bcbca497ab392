"""The alert groups the model reads: what an SRE acts on stays, repeats of it are dropped."""

from __future__ import annotations

from graph.analysts.llm.payload import digest_view
from tools.facts import AlertGroup, Digest


def _disk_group(**state: object) -> AlertGroup:
    fields: dict[str, object] = {
        "evidence_id": "alerts-1",
        "alertname": "HostDiskFull",
        "service": "node",
        "severity": "critical",
        "status": "firing",
        "count": 2,
        "instances": ["db1:9100", "db2:9100"],
        "first_started": "2026-01-01T10:00:00Z",
        "summary": "disk almost full",
        "identities": ["job=node instance=db1:9100 mountpoint=/data device=/dev/sdb1"],
        "value": "97.5",
        "labels": {
            "alertname": "HostDiskFull",
            "severity": "critical",
            "job": "node",
            "instance": "db1:9100",
            "mountpoint": "/data",
            "device": "/dev/sdb1",
            "fstype": "ext4",
            "team": "t" * 300,
        },
        "annotations": {
            "summary": "disk almost full",
            "description": "/data on db1 is 97.5% full",
            "runbook_url": "https://runbooks.example/disk",
        },
    }
    return AlertGroup(**(fields | state))  # type: ignore[arg-type]


def _view(group: AlertGroup) -> dict[str, object]:
    (view,) = digest_view(Digest(alert_groups=[group]))["alert_groups"]
    return dict(view)


def test_identity_value_and_the_labels_it_does_not_say_stay_repeats_go() -> None:
    view = _view(_disk_group())
    assert view["identities"] == ["job=node instance=db1:9100 mountpoint=/data device=/dev/sdb1"]
    assert view["value"] == "97.5" and view["severity"] == "critical"
    # job, instance, mountpoint and device are in the identity; alertname and severity have fields.
    labels = view["labels"]
    assert isinstance(labels, dict) and set(labels) == {"fstype", "team"}
    assert len(labels["team"]) <= 120
    # The summary has its own field; a runbook link is not evidence the model can use.
    assert view["description"] == "/data on db1 is 97.5% full" and "annotations" not in view
    # db1 is named by the identity; db2 is not, so it stays listed.
    assert view["instances"] == ["db2:9100"]
    assert "silenced" not in view and "inhibited" not in view and "muted" not in view


def test_silenced_and_inhibited_state_reaches_the_model() -> None:
    view = _view(
        _disk_group(silenced=1, inhibited=1, muted=2, silence_comment="disk swap", silenced_until="t1")
    )
    assert (view["silenced"], view["inhibited"]) == (1, 1)
    assert (view["silence_comment"], view["silenced_until"]) == ("disk swap", "t1")


def test_the_groups_own_service_is_not_repeated_in_each_identity() -> None:
    group = _disk_group(
        service="payment",
        identities=["service=payment instance=p-1", "service=payment"],
        instances=["p-1"],
        labels={"service": "payment", "instance": "p-1", "namespace": "shop"},
    )
    view = _view(group)
    assert view["service"] == "payment"
    # An identity that is its instance alone is listed once as an instance.
    assert view["instances"] == ["p-1"] and "identities" not in view
    assert view["labels"] == {"namespace": "shop"}


def test_a_count_the_listed_alerts_say_is_not_repeated() -> None:
    one_each = _view(_disk_group(count=2, identities=["instance=db1:9100", "instance=db2:9100"]))
    assert one_each["instances"] == ["db1:9100", "db2:9100"] and "count" not in one_each
    # More alerts than identities: the count says what the list does not.
    assert _view(_disk_group(count=5, identities=["instance=db1:9100"]))["count"] == 5
