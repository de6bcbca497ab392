"""Through the whole graph: alerts labelled as real exporters and community rules label them.

A rule that aggregates `by (instance)` fires with alertname, instance and severity only: it must be
diagnosed, never answered "No incident found" / healthy. A filesystem alert from the node exporter
names its instance and mountpoint, not only the `node` job. A silenced alert is said to be silenced.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graph.analysts.llm.prompts import PROMPT_LINES
from graph.analysts.rules import RuleAnalyst
from graph.build import build_graph
from graph.recorder import SilentObserver
from graph.runner import DiagnosisRunner, RunParts, RunRequest, RunResult
from tests.support.world_builder import write_world
from tools.alertmanager.fixture import AlertmanagerFixture
from tools.base import Sources
from tools.digest import build_digest
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.loki.fixture import LokiFixture
from tools.prometheus.fixture import PrometheusFixture
from tools.toolbox import Toolbox
from tools.world import load_world

NOW = datetime(2026, 5, 4, 16, 0, tzinfo=UTC)
GRAPH = build_graph()


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _flat(metric: str, labels: dict[str, str], value: float) -> dict[str, Any]:
    at = [NOW - timedelta(minutes=m) for m in range(120, -1, -1)]
    return {"metric": metric, "labels": labels, "samples": [[int(t.timestamp()), value] for t in at]}


async def _diagnose(directory: Path, question: str) -> RunResult:
    world = load_world(directory)
    sources = Sources(
        alerts=AlertmanagerFixture(world), metrics=PrometheusFixture(world), logs=LokiFixture(world)
    )
    rules = RuleAnalyst()
    parts = RunParts(
        analyst=rules,
        rules=rules,
        forbidden_lines=PROMPT_LINES,
        toolbox=Toolbox(sources, ToolLimits(), EvidenceCache(ttl_s=5.0, capacity=256)),
        evidence=RunEvidence(budget_bytes=1_048_576),
        digest=build_digest,
    )
    request = RunRequest(run_id="i", session_id="i", query=question)
    return await DiagnosisRunner(GRAPH).start(request, parts, SilentObserver()).result()


def _released_text(payload: dict[str, Any]) -> str:
    findings = " ".join(f["statement"] for f in payload.get("findings") or [])
    cause = (payload.get("root_cause") or {}).get("statement", "")
    return f"{payload.get('summary', '')} {cause} {findings}"


async def test_alert_with_only_alertname_instance_and_severity_is_diagnosed(tmp_path: Path) -> None:
    write_world(
        tmp_path,
        name="host-cpu",
        now=NOW,
        alerts=[
            {
                "labels": {"alertname": "HostHighCpuLoad", "instance": "db1:9100", "severity": "warning"},
                "annotations": {"summary": "CPU load is > 97%"},
                "startsAt": _iso(NOW - timedelta(minutes=6)),
                "status": "firing",
            }
        ],
        series=[_flat("node_load1", {"job": "node", "instance": "db1:9100"}, 0.4)],
        logs=[],
    )
    result = await _diagnose(tmp_path, "anything abnormal on the hosts?")
    payload = result.content["payload"]
    assert result.outcome == "SUCCESS", result.self_evaluation
    # Never dropped, never healthy. Its series stay flat, so nothing else speaks for a cause: an
    # incident whose cause is not established (issue 22), named by the alert and its instance.
    assert payload["healthy"] is False and payload["verdict"] == "incident"
    assert payload["root_cause"] is None
    text = _released_text(payload)
    assert "HostHighCpuLoad" in text and "db1:9100" in text and "not established" in text, text


async def test_filesystem_alert_names_instance_mountpoint_and_value(tmp_path: Path) -> None:
    series = {"job": "node", "instance": "db1:9100", "mountpoint": "/data", "device": "tmpfs"}
    labels = {"alertname": "HostFilesystemAlmostFull", **series, "severity": "critical"}
    write_world(
        tmp_path,
        name="host-disk",
        now=NOW,
        alerts=[
            {
                "labels": labels,
                "annotations": {"summary": "Filesystem /data almost full", "value": "93.4"},
                "startsAt": _iso(NOW - timedelta(minutes=4)),
                "status": "firing",
            },
            {
                "labels": {"alertname": "PostgresDown", "job": "postgres", "instance": "pg1:9187"},
                "annotations": {"summary": "pg down for maintenance"},
                "startsAt": _iso(NOW - timedelta(minutes=5)),
                "status": "firing",
                "silenced": True,
                "silenceComment": "planned maintenance",
                "silencedUntil": _iso(NOW + timedelta(hours=1)),
            },
        ],
        series=[_flat("node_filesystem_avail_bytes", series, 1e6)],
        logs=[],
    )
    result = await _diagnose(tmp_path, "why is HostFilesystemAlmostFull firing?")
    payload = result.content["payload"]
    assert result.outcome == "SUCCESS", result.self_evaluation
    text = _released_text(payload)
    assert "instance=db1:9100" in text and "mountpoint=/data" in text, text
    assert "93.4" in text
    # The silenced PostgresDown is known and muted: it is never blamed for the filesystem.
    assert payload["verdict"] == "incident"
    assert (payload["root_cause"] or {}).get("service") != "postgres"
