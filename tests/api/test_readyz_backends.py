"""/readyz reports each configured evidence backend with status and latency; a failing one degrades
(status degraded, still 200 and ready), it never fails readiness."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.api.conftest import MakeClient
from tests.support.prometheus import running_alertmanager
from tests.support.world_builder import write_world
from tools.world import load_world

DEAD = "http://127.0.0.1:1"  # nothing listens on port 1


async def test_world_backends_are_each_reported_ok_with_latency(make_client: MakeClient) -> None:
    async with make_client() as (_, client):
        response = await client.get("/readyz")
    assert response.status_code == 200
    evidence = response.json()["data"]["checks"]["evidence"]
    assert {"alerts", "metrics", "logs"} <= set(evidence)
    for name, check in evidence.items():
        assert check["status"] == "ok", (name, check)
        assert isinstance(check["latency_ms"], float) and check["latency_ms"] >= 0
        assert check["backend"]


@pytest.mark.alertmanager
async def test_unreachable_prometheus_and_loki_degrade_without_failing_readiness(
    make_client: MakeClient, tmp_path: Path
) -> None:
    world = load_world(write_world(tmp_path / "w", name="ready", now=datetime.now(UTC), alerts=[]))
    (tmp_path / "am").mkdir()
    with running_alertmanager(world, tmp_path / "am") as alertmanager:
        overrides = {"alertmanager_url": alertmanager, "prometheus_url": DEAD, "loki_url": DEAD}
        async with make_client(**overrides, backends={"tool_timeout_s": 2.0}) as (_, client):
            response = await client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["data"]["ready"] is True and body["code"] == "OK"
    evidence = body["data"]["checks"]["evidence"]
    assert evidence["alerts"]["status"] == "ok" and evidence["alerts"]["backend"] == "Alertmanager"
    assert evidence["metrics"]["status"] == "degraded" and evidence["metrics"]["backend"] == "Prometheus"
    assert evidence["logs"]["status"] == "degraded" and evidence["logs"]["backend"] == "Loki"
    # The reason is safe wording, never the exception text or the URL.
    assert DEAD not in response.text and "Errno" not in response.text
    assert "knowledge" not in evidence  # not configured: not reported as a backend
