"""A cluster whose one member's machine broke first (a broker's host whose disk filled): that machine is
the root of the cluster's trouble and of its clients', not the louder members that report it."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest


def _broker(n: int) -> dict[str, str]:
    return {"job": "kafka", "instance": f"kafka-{n}.yard.lan:7071"}


def test_the_member_whose_machine_broke_first_is_the_root_of_its_clusters_trouble() -> None:
    disk = alert(
        "NodeFilesystemAlmostOutOfSpace",
        "node",
        "2026-03-01T10:30:00Z",
        {"job": "node", "instance": "kafka-2.yard.lan:9100", "mountpoint": "/var/lib/kafka"},
        "Filesystem has less than 3% space left.",
    )
    digest = Digest(
        anomalies=[
            replace(
                move("up", "kafka", "2026-03-01T10:42:00Z", _broker(2)),
                direction="down",
                baseline=1.0,
                recent=0.0,
            ),
            move(
                "kafka_server_replicamanager_underreplicatedpartitions",
                "kafka",
                "2026-03-01T10:42:00Z",
                _broker(0),
            ),
        ],
        alert_groups=[
            disk,
            alert(
                "UnderReplicatedPartitions", "kafka", "2026-03-01T10:46:00Z", _broker(0), "under-replicated"
            ),
        ],
        log_patterns=[
            replace(
                lines(
                    "kafka-2",
                    "kafka.service: Main process exited, code=exited, status=1/FAILURE",
                    "2026-03-01T10:41:18Z",
                    count=6,
                    level="warn",
                ),
                host="kafka-2.yard.lan",
            ),
            replace(
                lines(
                    "kafka-0",
                    "[ReplicaManager broker=0] Error processing append operation on partition scans-3",
                    "2026-03-01T10:44:48Z",
                ),
                host="kafka-0.yard.lan",
            ),
            lines("scan-tracker", "publish failed: NOT_ENOUGH_REPLICAS from kafka", "2026-03-01T10:42:30Z"),
        ],
    )
    draft = diagnose_digest(ask("scan-tracker fails to publish scan events. What's going on?", digest))
    assert draft.root_cause is not None and draft.root_cause.service == "kafka-2.yard.lan"
