"""The rule-based analyst on small worlds it was not written against: other names, healthy systems."""

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
CHANGE = NOW - timedelta(minutes=25)
GRAPH = build_graph()


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _series(metric: str, labels: dict[str, str], before: float, after: float) -> dict[str, Any]:
    samples = []
    for minute in range(180, -1, -1):
        at = NOW - timedelta(minutes=minute)
        wobble = 1 + 0.02 * ((minute * 7) % 5 - 2)
        samples.append([int(at.timestamp()), round((after if at >= CHANGE else before) * wobble, 4)])
    return {"metric": metric, "labels": labels, "samples": samples}


def _logs(service: str, level: str, message: str, start: datetime, every_s: int) -> list[dict[str, Any]]:
    lines, at = [], start
    while at <= NOW:
        lines.append({"ts": _iso(at), "service": service, "level": level, "message": message})
        at += timedelta(seconds=every_s)
    return lines


async def _diagnose(directory: Path, question: str) -> RunResult:
    world = load_world(directory)
    sources = Sources(
        alerts=AlertmanagerFixture(world), metrics=PrometheusFixture(world), logs=LokiFixture(world)
    )
    toolbox = Toolbox(sources, ToolLimits(), EvidenceCache(ttl_s=30.0, capacity=256))
    rules = RuleAnalyst()
    parts = RunParts(
        analyst=rules,
        rules=rules,
        forbidden_lines=PROMPT_LINES,
        toolbox=toolbox,
        evidence=RunEvidence(budget_bytes=1_048_576),
        digest=build_digest,
    )
    request = RunRequest(run_id="w", session_id="w", query=question)
    return await DiagnosisRunner(GRAPH).start(request, parts, SilentObserver()).result()


async def test_memory_incident_in_an_unseen_world(tmp_path: Path) -> None:
    start = NOW - timedelta(hours=3)
    write_world(
        tmp_path,
        name="queue",
        now=NOW,
        alerts=[
            {
                "labels": {"alertname": "ContainerOOMKilled", "service": "blobcache", "severity": "critical"},
                "annotations": {"summary": "blobcache containers OOM killed"},
                "startsAt": _iso(CHANGE + timedelta(minutes=3)),
                "status": "firing",
            },
            {
                "labels": {"alertname": "DiskAlmostFull", "service": "nightly-export", "severity": "warning"},
                "annotations": {"summary": "disk 91% full"},
                "startsAt": _iso(NOW - timedelta(hours=9)),
                "status": "firing",
            },
        ],
        series=[
            _series("container_memory_working_set_bytes", {"service": "blobcache"}, 2.1e9, 7.9e9),
            _series("job_latency_seconds", {"service": "ingestor"}, 0.4, 6.5),
            _series("job_latency_seconds", {"service": "blobcache"}, 0.05, 0.05),
            _series("disk_used_ratio", {"service": "nightly-export"}, 0.91, 0.91),
        ],
        logs=_logs("ingestor", "INFO", "batch committed", start, 120)
        + _logs("blobcache", "INFO", "cache warm", start, 300)
        + _logs("blobcache", "ERROR", "java.lang.OutOfMemoryError: Java heap space", CHANGE, 30)
        + _logs(
            "ingestor",
            "ERROR",
            "lookup failed: blobcache unreachable (connection reset)",
            CHANGE + timedelta(minutes=2),
            20,
        )
        + _logs("nightly-export", "WARN", "export slow: disk 91% full", start, 600),
    )
    result = await _diagnose(tmp_path, "Why are ingestor jobs so slow?")
    payload = result.content["payload"]
    assert result.outcome == "SUCCESS", result.self_evaluation
    assert payload["root_cause"]["service"] == "blobcache"
    assert payload["root_cause"]["category"] == "memory_leak"
    assert "nightly-export" in [item["service"] for item in payload["ruled_out"]]


async def test_healthy_world_reports_no_incident(tmp_path: Path) -> None:
    start = NOW - timedelta(hours=3)
    write_world(
        tmp_path,
        name="calm",
        now=NOW,
        alerts=[
            {
                "labels": {"alertname": "DiskAlmostFull", "service": "vault", "severity": "warning"},
                "annotations": {"summary": "disk 86% full"},
                "startsAt": _iso(NOW - timedelta(hours=2)),
                "endsAt": _iso(NOW - timedelta(hours=1)),
                "status": "resolved",
            }
        ],
        series=[
            _series("request_latency_seconds", {"service": "vault"}, 0.2, 0.2),
            _series("error_ratio", {"service": "portal"}, 0.001, 0.001),
        ],
        logs=_logs("vault", "INFO", "request served", start, 60)
        + _logs("portal", "INFO", "page rendered", start, 90),
    )
    result = await _diagnose(tmp_path, "Is anything wrong with vault right now?")
    payload = result.content["payload"]
    assert result.outcome == "SUCCESS", result.self_evaluation
    assert payload["healthy"] is True
    assert payload["root_cause"] is None
    assert "no incident found" in payload["summary"].lower()
