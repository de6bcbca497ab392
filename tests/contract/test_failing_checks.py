"""The lookup's "which targets are down" check list, on the world fixture and on a real Prometheus
scraping a real node exporter.

A healthy host's node exporter reports `node_scrape_collector_success{collector=...} 0` for every
collector whose hardware it lacks (a dozen on this machine: dmi, hwmon, nvme, ...); those are the
exporter's own collectors, not targets, and must not be listed as failing checks.
"""

from __future__ import annotations

import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from graph.analysts.rules.lookup import FAILING_CHECKS
from tests.support.live_server import free_port
from tests.support.prometheus import require_binary, running_prometheus
from tests.support.world_builder import write_world
from tools.base import MetricsSource
from tools.prometheus import PrometheusClient, PrometheusFixture
from tools.world import World, load_world

FAILING = "https://ledger.example/health"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    stamps = [(now - timedelta(minutes=minutes)).timestamp() for minutes in range(30, -1, -1)]

    def flat(metric: str, labels: dict[str, str], value: float) -> dict[str, object]:
        return {"metric": metric, "labels": labels, "samples": [[ts, value] for ts in stamps]}

    series = [
        flat("probe_success", {"instance": FAILING, "job": "probe"}, 0.0),
        flat("probe_success", {"instance": "https://relay.example/health", "job": "probe"}, 1.0),
        flat(
            "node_scrape_collector_success",
            {"collector": "hwmon", "instance": "db1:9100", "job": "node"},
            0.0,
        ),
    ]
    path = write_world(tmp_path_factory.mktemp("checks"), name="checks", now=now, alerts=[], series=series)
    return load_world(path)


@pytest.fixture(scope="module")
def node_exporter() -> Iterator[str]:
    binary = require_binary("prometheus-node-exporter")
    address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [binary, f"--web.listen-address={address}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with urllib.request.urlopen(f"http://{address}/metrics", timeout=2) as response:
                    if b"node_scrape_collector_success" in response.read():
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("node exporter did not serve its metrics")
            time.sleep(0.2)
        yield address
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(params=["fixture", pytest.param("prometheus", marks=pytest.mark.prometheus)])
async def source(request: pytest.FixtureRequest, world: World) -> AsyncIterator[MetricsSource]:
    if request.param == "fixture":
        yield PrometheusFixture(world)
        return
    address = request.getfixturevalue("node_exporter")
    workdir = Path(request.getfixturevalue("tmp_path"))
    with running_prometheus(world, workdir, scrape=[("node", address)]) as url:
        async with httpx.AsyncClient() as client:
            yield PrometheusClient(client, url)


async def test_only_checks_of_a_target_are_listed_not_an_exporters_own_collectors(
    source: MetricsSource, world: World
) -> None:
    at = await source.now()

    result = await source.query_instant(promql=FAILING_CHECKS, at=at, max_series=50)

    assert [(series.metric, series.labels.get("instance")) for series in result] == [
        ("probe_success", FAILING)
    ]
