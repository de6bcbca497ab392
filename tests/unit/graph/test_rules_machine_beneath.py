"""A system asked about whose trouble is its machine's: etcd's slow fsyncs on a disk another process
saturates on the same machine. The machine (known by its host telemetry's instance) is the root; a
cluster's environment named in the question ("kubectl against fw-prod") is a place, not a system."""

from __future__ import annotations

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, move
from tools.facts import Digest

QUESTION = "since 10:05 kubectl against cp-prod hangs and etcd keeps electing leaders, what is going on?"


def _digest(disk_at: str) -> Digest:
    fsync = move("etcd_disk_wal_fsync_duration_seconds", "etcd", "2026-03-01T10:01:00Z",
                 {"job": "etcd", "instance": "cp-2:2379"})  # fmt: skip
    disk = move("node_disk_io_time_seconds_total", "node", disk_at, {"job": "node", "instance": "cp-2:9100"})
    fsync_alert = alert("etcdHighFsyncDurations", "etcd", "2026-03-01T10:16:00Z",
                        {"job": "etcd", "instance": "cp-2:2379"}, "fsync durations are too high")  # fmt: skip
    disk_alert = alert("NodeDiskIOSaturation", "node", "2026-03-01T10:33:00Z",
                       {"job": "node", "instance": "cp-2:9100"}, "Disk IO queue is high")  # fmt: skip
    return Digest(anomalies=[fsync, disk], alert_groups=[fsync_alert, disk_alert])


def test_a_system_whose_machine_was_in_trouble_by_then_is_explained_by_the_machine() -> None:
    draft = diagnose_digest(ask(QUESTION, _digest("2026-03-01T10:00:00Z")))
    assert draft.verdict == "incident" and draft.root_cause is not None
    assert draft.root_cause.service == "cp-2"
    assert "etcd" in draft.summary and "unrelated" not in draft.summary


def test_a_machine_whose_trouble_came_later_is_no_cause() -> None:
    draft = diagnose_digest(ask(QUESTION, _digest("2026-03-01T10:30:00Z")))
    assert draft.root_cause is not None and draft.root_cause.service == "etcd"
