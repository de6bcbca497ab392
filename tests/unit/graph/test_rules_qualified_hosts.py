"""A machine its series know by its fully qualified name (`db-7.corp.internal:9100`) and its own lines
or labels by its first label (`db-7`) is one system, under the short name its owners use."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly


def _digest(instance_host: str, log_host: str | None, host_label: str | None) -> Digest:
    labels = {"job": "node", "instance": f"{instance_host}:9100"}
    alert_labels = {"alertname": "HostOomKillDetected", **labels}
    if host_label is not None:
        alert_labels["host"] = host_label
    return Digest(
        anomalies=[
            MetricAnomaly(
                evidence_id="metrics-1",
                metric="node_vmstat_oom_kill",
                labels=labels,
                service="node",
                baseline=0,
                recent=1,
                peak=2,
                change_at="2026-01-01T09:07:00Z",
                direction="up",
                ratio=10.0,
                score=30.0,
            )
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="HostOomKillDetected",
                service="node",
                severity="warning",
                status="firing",
                count=1,
                instances=[f"{instance_host}:9100"],
                first_started="2026-01-01T09:07:00Z",
                summary=f"Host OOM kill detected (instance {instance_host}:9100)",
                labels=alert_labels,
            )
        ],
        log_patterns=[
            *(
                [
                    LogPattern(
                        evidence_id="logs-1",
                        service=log_host,
                        host=log_host,
                        level="warn",
                        template="docstore.service: Failed with result 'oom-kill'.",
                        count=2,
                        first_seen="2026-01-01T09:06:30Z",
                        last_seen="2026-01-01T09:24:08Z",
                        example="docstore.service: Failed with result 'oom-kill'.",
                    )
                ]
                if log_host
                else []
            ),
            LogPattern(
                evidence_id="logs-2",
                service="order-intake",
                level="error",
                template=f"write failed: no primary reachable, last tried {instance_host}:27017",
                count=40,
                first_seen="2026-01-01T09:07:10Z",
                last_seen="2026-01-01T09:29:00Z",
                example=f"write failed: no primary reachable, last tried {instance_host}:27017",
            ),
        ],
    )


def _root(digest: Digest) -> tuple[str, str]:
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why are order writes failing?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T09:30:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    return draft.root_cause.service, draft.summary


def test_a_machine_goes_by_the_short_name_its_lines_use() -> None:
    service, summary = _root(_digest("db-7.corp.internal", "db-7", host_label=None))
    assert service == "db-7"
    assert "db-7.corp.internal" not in summary  # one system, not the machine and its stream


def test_a_host_label_gives_the_short_name_too() -> None:
    service, _ = _root(_digest("db-7.corp.internal", None, host_label="db-7"))
    assert service == "db-7"


def test_a_machine_no_evidence_calls_short_keeps_its_whole_name() -> None:
    service, _ = _root(_digest("db-7.corp.internal", None, host_label=None))
    assert service == "db-7.corp.internal"
