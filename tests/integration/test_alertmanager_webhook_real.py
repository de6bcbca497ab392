"""A real Alertmanager whose receiver points at the live service: an alert posted to Alertmanager
becomes one AIOps run, stored and traced under the webhook's principal, listed as an investigation."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from api.app import create_app
from api.settings import Settings
from tests.support.live_server import free_port, live_server
from tests.support.prometheus import _process, require_binary

pytestmark = pytest.mark.alertmanager

HOOK_TOKEN = "hook-token-123"
ALICE = {"Authorization": "Bearer alice-token-123"}
LABELS = {"alertname": "OrdersQueueBacklog", "service": "orders-worker", "severity": "critical"}


@contextmanager
def alertmanager(workdir: Path, port: int, receiver_url: str) -> Iterator[str]:
    """Alertmanager on `port`, every group sent at once to the service's webhook with its token."""
    config = {
        "route": {
            "receiver": "superbiz",
            "group_by": ["alertname", "service"],
            "group_wait": "1s",
            "group_interval": "5m",
            "repeat_interval": "1h",
        },
        "receivers": [
            {
                "name": "superbiz",
                "webhook_configs": [
                    {
                        "url": receiver_url,
                        "send_resolved": True,
                        "http_config": {"authorization": {"type": "Bearer", "credentials": HOOK_TOKEN}},
                    }
                ],
            }
        ],
    }
    (workdir / "alertmanager.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    command = [
        require_binary("prometheus-alertmanager"),
        f"--config.file={workdir / 'alertmanager.yml'}",
        f"--storage.path={workdir / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--cluster.listen-address=",
        "--log.level=warn",
    ]
    with _process(command, workdir / "alertmanager.log"):
        yield f"http://127.0.0.1:{port}"


async def _eventually(check: Any, what: str, bound_s: float = 60.0) -> Any:
    deadline = asyncio.get_running_loop().time() + bound_s
    while asyncio.get_running_loop().time() < deadline:
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


async def test_an_alert_posted_to_alertmanager_becomes_a_traced_investigation(tmp_path: Path) -> None:
    am_port = free_port()
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'am.db'}",
        alertmanager_url=f"http://127.0.0.1:{am_port}",
        api_tokens="alice:alice-token-123",
        alert_webhook={"token": HOOK_TOKEN, "principal": "alice"},
    )
    async with live_server(create_app(settings)) as url:
        with alertmanager(tmp_path, am_port, f"{url}/api/alertmanager/webhook") as am_url:
            async with httpx.AsyncClient(timeout=10) as am:

                async def ready() -> bool:
                    try:
                        return (await am.get(f"{am_url}/-/ready")).status_code == 200
                    except httpx.HTTPError:
                        return False

                await _eventually(ready, "Alertmanager ready", 30)
                starts = (datetime.now(UTC) - timedelta(minutes=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
                alert = {"labels": LABELS, "annotations": {"summary": "orders backlog"}, "startsAt": starts}
                assert (await am.post(f"{am_url}/api/v2/alerts", json=[alert])).status_code == 200

            async with httpx.AsyncClient(base_url=url, headers=ALICE, timeout=10) as client:

                async def finished() -> list[dict[str, Any]]:
                    runs = (await client.get("/api/investigations")).json()["data"]
                    return [r for r in runs if r["status"] != "RUNNING"]

                runs = await _eventually(finished, "the webhook's run to finish")
                assert len(runs) == 1, runs
                run = runs[0]
                assert run["agentFlow"] == "AI_OPS" and run["status"] == "SUCCESS"
                assert "OrdersQueueBacklog" in run["query"]
                trace = (
                    await client.get(
                        f"/api/diagnosis/{run['sessionId']}/trace", params={"runId": run["runId"]}
                    )
                ).json()["data"]
                assert trace["session"]["sessionId"].startswith("am-")
                assert trace["toolInvocations"][0]["tool"] == "list_alerts"
                assert trace["toolInvocations"][0]["status"] == "OK"
                summary = trace["answer"]["payload"]["summary"]
                assert "OrdersQueueBacklog" in summary and "1 alert group" in summary
