"""A real Alertmanager: silenced and inhibited alerts are marked (with the silence's comment and end),
every label and annotation reaches the evidence, and a later question never sees a resolved alert
as firing (alerts are shared within a run only, whatever the cache's TTL)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.support.prometheus import running_alertmanager
from tests.support.world_builder import write_world
from tools.alertmanager import AlertmanagerClient
from tools.base import Sources
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.toolbox import Toolbox
from tools.world import load_world

pytestmark = pytest.mark.alertmanager

NOW = datetime.now(UTC)
FS = {"alertname": "HostFilesystemAlmostFull", "job": "node", "instance": "db1:9100", "mountpoint": "/data",
      "device": "/dev/sdb1", "severity": "critical"}  # fmt: skip
CPU = {"alertname": "HostHighCpuLoad", "instance": "db1:9100", "severity": "warning"}
PG = {"alertname": "PostgresqlDown", "job": "postgres", "instance": "pg1:9187", "severity": "critical"}
# The critical filesystem alert inhibits warnings on the same instance (a common mixin rule).
INHIBIT = {
    "source_matchers": ["severity=critical"],
    "target_matchers": ["severity=warning"],
    "equal": ["instance"],
}


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _alert(labels: dict[str, str], **annotations: str) -> dict[str, Any]:
    return {"labels": labels, "annotations": annotations, "startsAt": _iso(NOW - timedelta(minutes=5))}


@pytest.fixture(scope="module")
def alertmanager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    world_dir = tmp_path_factory.mktemp("world")
    alerts = [_alert(FS, summary="Filesystem almost full", value="93.4"), _alert(CPU), _alert(PG)]
    write_world(world_dir, name="am-state", now=NOW, alerts=alerts)
    workdir = tmp_path_factory.mktemp("am")
    with running_alertmanager(load_world(world_dir), workdir, inhibit_rules=[INHIBIT]) as url:
        silence = {
            "matchers": [{"name": "alertname", "value": "PostgresqlDown", "isRegex": False, "isEqual": True}],
            "startsAt": _iso(datetime.now(UTC) - timedelta(minutes=1)),
            "endsAt": _iso(datetime.now(UTC) + timedelta(hours=2)),
            "createdBy": "test",
            "comment": "planned maintenance of pg1",
        }
        httpx.post(f"{url}/api/v2/silences", json=silence, timeout=5).raise_for_status()
        _until(lambda: _states(url).get("PostgresqlDown") == "suppressed", "silence applied")
        _until(lambda: _states(url).get("HostHighCpuLoad") == "suppressed", "inhibition applied")
        yield url


def _states(url: str) -> dict[str, str]:
    body = httpx.get(f"{url}/api/v2/alerts", timeout=5).json()
    return {a["labels"]["alertname"]: a["status"]["state"] for a in body}


def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 20
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.fixture
async def toolbox(alertmanager: str) -> AsyncIterator[Toolbox]:
    async with httpx.AsyncClient() as client:
        sources = Sources(alerts=AlertmanagerClient(client, alertmanager))
        # A long TTL on purpose: alerts must stay fresh because they are shared within a run only.
        yield Toolbox(sources, ToolLimits(), EvidenceCache(ttl_s=30.0, capacity=64))


async def test_silenced_and_inhibited_alerts_are_marked_with_the_silence(alertmanager: str) -> None:
    async with httpx.AsyncClient() as client:
        listed = await AlertmanagerClient(client, alertmanager).active_alerts(limit=10)
    alerts = {a.labels["alertname"]: a for a in listed}
    pg, cpu, fs = alerts["PostgresqlDown"], alerts["HostHighCpuLoad"], alerts["HostFilesystemAlmostFull"]
    assert pg.status == "firing" and pg.silenced and not pg.inhibited
    assert pg.silence_comment == "planned maintenance of pg1"
    assert pg.silenced_until is not None and pg.silenced_until > datetime.now(UTC) + timedelta(hours=1)
    assert cpu.inhibited and not cpu.silenced and cpu.silence_comment is None
    assert not fs.silenced and not fs.inhibited


async def test_evidence_keeps_every_label_annotation_and_the_state(toolbox: Toolbox) -> None:
    evidence = await toolbox.call("list_alerts", {}, RunEvidence(budget_bytes=1_048_576))
    items = {a["labels"]["alertname"]: a for a in evidence.data["alerts"]}
    fs = items["HostFilesystemAlmostFull"]
    assert fs["labels"] == FS
    assert fs["annotations"] == {"summary": "Filesystem almost full", "value": "93.4"}
    assert fs["identity"] == "job=node instance=db1:9100 mountpoint=/data device=/dev/sdb1"
    assert "silenced" not in fs and "inhibited" not in fs
    assert items["PostgresqlDown"]["silenced"] is True
    assert items["PostgresqlDown"]["silenceComment"] == "planned maintenance of pg1"
    assert items["HostHighCpuLoad"]["inhibited"] is True
    assert "silenced or inhibited" in evidence.summary


async def test_list_alerts_scoped_by_job_or_instance_finds_exporter_alerts(toolbox: Toolbox) -> None:
    run = RunEvidence(budget_bytes=1_048_576)
    by_job = await toolbox.call("list_alerts", {"service": "node"}, run)
    by_host = await toolbox.call("list_alerts", {"service": "db1"}, run)
    assert [a["labels"]["alertname"] for a in by_job.data["alerts"]] == ["HostFilesystemAlmostFull"]
    assert sorted(a["labels"]["alertname"] for a in by_host.data["alerts"]) == [
        "HostFilesystemAlmostFull",
        "HostHighCpuLoad",
    ]


async def test_a_resolved_alert_is_not_served_as_firing_to_a_later_question(
    alertmanager: str, toolbox: Toolbox
) -> None:
    flapping = {"alertname": "RedisKeySpike", "job": "redis", "instance": "r1:9121", "severity": "warning"}
    started = _iso(datetime.now(UTC) - timedelta(minutes=2))
    async with httpx.AsyncClient(base_url=alertmanager, timeout=5) as client:
        firing = [{"labels": flapping, "startsAt": started}]
        (await client.post("/api/v2/alerts", json=firing)).raise_for_status()
    _until(lambda: "RedisKeySpike" in _states(alertmanager), "alert listed")
    first = await toolbox.call("list_alerts", {}, RunEvidence(budget_bytes=1_048_576))
    assert "RedisKeySpike" in {a["labels"]["alertname"] for a in first.data["alerts"]}
    # Resolve it, then ask again well within the old 30 s cache window.
    ended = _iso(datetime.now(UTC) - timedelta(seconds=1))
    async with httpx.AsyncClient(base_url=alertmanager, timeout=5) as client:
        resolved = [{"labels": flapping, "startsAt": started, "endsAt": ended}]
        (await client.post("/api/v2/alerts", json=resolved)).raise_for_status()
    _until(lambda: "RedisKeySpike" not in _states(alertmanager), "alert resolved")
    later = await toolbox.call("list_alerts", {}, RunEvidence(budget_bytes=1_048_576))
    assert "RedisKeySpike" not in {a["labels"]["alertname"] for a in later.data["alerts"]}


async def test_identical_calls_within_one_run_share_one_answer(toolbox: Toolbox) -> None:
    run = RunEvidence(budget_bytes=1_048_576)
    first = await toolbox.call("list_alerts", {}, run)
    second = await toolbox.call("list_alerts", {}, run)
    assert first.data == second.data and first.id != second.id
