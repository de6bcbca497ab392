"""The AIOps rule evaluation is computed from each group's released report, never assumed."""

from __future__ import annotations

from typing import Any

from api.aiops_evaluation import evaluate_released
from api.aiops_flow import AlertGroupRef

DISK = AlertGroupRef("VolumeAlmostFull", "ledger-db", 1, "critical", "service=ledger-db")
CPU = AlertGroupRef("HostCpuHigh", "host-9:9100", 1, "warning", "instance=host-9:9100")
EVIDENCE = [
    {"id": "alerts-1", "source": "alerts", "tool": "list_alerts", "title": "", "status": "OK"},
    {"id": "logs-1", "source": "logs", "tool": "query_logs", "title": "", "status": "OK"},
    {"id": "kb-1", "source": "knowledge", "tool": "search_runbooks", "title": "", "status": "OK"},
]


def _report(service: str, statement: str, **extra: Any) -> dict[str, Any]:
    return {
        "summary": f"Root cause: {service}.",
        "verdict": "incident",
        "healthy": False,
        "root_cause": {
            "service": service,
            "category": "disk_full",
            "statement": statement,
            "confidence": 0.8,
        },
        "findings": [{"statement": statement, "evidence_ids": ["alerts-1", "logs-1"]}],
        "evidence": EVIDENCE,
        "recommendations": [{"action": "Free space.", "runbook": "disk.md"}],
        "degraded": False,
    } | extra


def test_each_group_answered_about_itself_passes() -> None:
    released = [
        (DISK, _report("ledger-db", "ledger-db: alert VolumeAlmostFull firing")),
        (CPU, _report("host-9:9100", "host-9:9100: alert HostCpuHigh firing")),
    ]
    evaluation = evaluate_released([DISK, CPU], released, runbooks_available=True)
    assert evaluation["passed"], evaluation


def test_a_group_given_another_groups_root_cause_is_not_counted_as_addressed_honestly() -> None:
    # The CPU group's report names the disk group's cause and never mentions the CPU host.
    released = [
        (DISK, _report("ledger-db", "ledger-db: alert VolumeAlmostFull firing")),
        (CPU, _report("ledger-db", "ledger-db: alert HostCpuHigh and VolumeAlmostFull firing")),
    ]
    evaluation = evaluate_released([DISK, CPU], released, runbooks_available=True)
    assert evaluation["checks"]["each_group_under_its_own_identity"] is False
    assert evaluation["misattributed"][0]["alertname"] == "HostCpuHigh"
    assert evaluation["passed"] is False


def test_failed_or_degraded_reports_and_uncited_runbooks_are_counted() -> None:
    released = [
        (
            DISK,
            _report("ledger-db", "ledger-db: VolumeAlmostFull", recommendations=[{"action": "Free space."}]),
        ),
        (CPU, _report("host-9:9100", "host-9:9100: HostCpuHigh", degraded=True)),
    ]
    evaluation = evaluate_released([DISK, CPU], released, runbooks_available=True)
    assert evaluation["checks"]["every_alert_addressed"] is False
    assert evaluation["checks"]["runbooks_cited"] is False
    unbacked = _report("ledger-db", "ledger-db: VolumeAlmostFull")
    unbacked["findings"] = [{"statement": "ledger-db: VolumeAlmostFull", "evidence_ids": ["metrics-9"]}]
    evaluation = evaluate_released([DISK], [(DISK, unbacked)], runbooks_available=False)
    assert evaluation["checks"]["no_unsupported_claims"] is False
    assert evaluation["checks"]["root_causes_backed_by_evidence"] is False
