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


async def test_asked_what_caused_trouble_that_ended_the_released_report_names_it_and_is_healthy(
    tmp_path: Path,
) -> None:
    """Through the guard and the composer: a cause of trouble that is over is released with the
    healthy verdict only when the question asks what caused it."""
    start = NOW - timedelta(hours=3)
    burst_from, burst_to = NOW - timedelta(minutes=90), NOW - timedelta(minutes=60)
    burst = [
        line
        for line in _logs("spooler", "ERROR", "write failed: no space left on device", burst_from, 30)
        if line["ts"] <= _iso(burst_to)
    ]
    write_world(
        tmp_path,
        name="over",
        now=NOW,
        alerts=[],
        series=[_series("request_latency_seconds", {"service": "spooler"}, 0.2, 0.2)],
        logs=sorted(_logs("spooler", "INFO", "job spooled", start, 60) + burst, key=lambda line: line["ts"]),
    )
    question = f"What caused the spooler pages between {_iso(burst_from)[11:16]} and now?"
    asked = await _diagnose(tmp_path, question)
    payload = asked.content["payload"]
    assert asked.outcome == "SUCCESS", asked.self_evaluation
    assert payload["verdict"] == "healthy" and payload["root_cause"]["service"] == "spooler"
    assert "It is over: nothing is abnormal now." in payload["summary"]
    now = (await _diagnose(tmp_path, "Is spooler ok now?")).content["payload"]
    assert now["verdict"] == "healthy" and now["root_cause"] is None
