"""One contract for AlertsSource, run against the world fixture, a real Prometheus (alerting rules
that really fire) and a real Alertmanager (the world's alerts POSTed to it).

All three serve the same world; every assertion is shared. Real sides skip locally (fail in CI)
when the Debian binaries are missing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import httpx
import pytest

from tests.support.prometheus import running_alertmanager, running_prometheus
from tests.support.world_builder import LATENCY_ALERT, LATENCY_ALERT_INSTANCES, build_contract_world
from tools.alertmanager import AlertmanagerClient, AlertmanagerFixture
from tools.base import AlertsSource, EvidenceStatus, SourceError
from tools.prometheus import PrometheusClient
from tools.world import World, load_world


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    built = build_contract_world(tmp_path_factory.mktemp("world"), datetime.now(UTC))
    return load_world(built.path)


@pytest.fixture(scope="module")
def prometheus_url(world: World, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_prometheus(world, tmp_path_factory.mktemp("prometheus")) as url:
        yield url


@pytest.fixture(scope="module")
def alertmanager_url(world: World, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_alertmanager(world, tmp_path_factory.mktemp("alertmanager")) as url:
        yield url


@pytest.fixture(
    params=[
        "fixture",
        pytest.param("prometheus", marks=pytest.mark.prometheus),
        pytest.param("alertmanager", marks=pytest.mark.alertmanager),
    ]
)
async def source(request: pytest.FixtureRequest, world: World) -> AsyncIterator[AlertsSource]:
    if request.param == "fixture":
        yield AlertmanagerFixture(world)
        return
    url = request.getfixturevalue(f"{request.param}_url")
    backend = PrometheusClient if request.param == "prometheus" else AlertmanagerClient
    async with httpx.AsyncClient() as client:
        yield backend(client, url)


async def test_source_is_healthy_and_tells_time(source: AlertsSource, world: World) -> None:
    assert (await source.health()).ok
    now = await source.now()
    assert now.tzinfo is not None
    assert now >= world.now


async def test_every_active_instance_is_listed(source: AlertsSource) -> None:
    alerts = await source.active_alerts(limit=50)

    counts = Counter(alert.labels["alertname"] for alert in alerts)
    assert counts == {LATENCY_ALERT: 3, "RelayQueueBacklog": 1}
    instances = {
        alert.labels.get("instance") for alert in alerts if alert.labels["alertname"] == LATENCY_ALERT
    }
    assert instances == set(LATENCY_ALERT_INSTANCES)


async def test_alerts_carry_labels_annotations_and_times(source: AlertsSource) -> None:
    now = await source.now()

    for alert in await source.active_alerts(limit=50):
        assert alert.status == "firing"
        assert alert.labels["service"] in {"ledger", "relay"}
        assert alert.labels["severity"] in {"critical", "warning"}
        assert alert.annotations["summary"]
        assert alert.starts_at is not None
        assert alert.starts_at.tzinfo is not None
        assert alert.starts_at <= now
        assert alert.ends_at is None or alert.ends_at > now


async def test_resolved_alerts_are_not_active(source: AlertsSource) -> None:
    alerts = await source.active_alerts(limit=50)

    assert "RelayRestarted" not in {alert.labels["alertname"] for alert in alerts}


async def test_limit_caps_the_list(source: AlertsSource) -> None:
    assert len(await source.active_alerts(limit=2)) == 2


async def test_alertmanager_failure_is_a_safe_source_error() -> None:
    secret = "internal stack trace with token abc123"
    transport = httpx.MockTransport(lambda request: httpx.Response(500, text=secret))
    async with httpx.AsyncClient(transport=transport) as client:
        alertmanager = AlertmanagerClient(client, "http://alertmanager.invalid")
        with pytest.raises(SourceError) as raised:
            await alertmanager.active_alerts(limit=5)
        health = await alertmanager.health()

    assert raised.value.public == "Alertmanager failed (HTTP 500)"
    assert raised.value.status is EvidenceStatus.ERROR
    assert not health.ok
    assert "abc123" not in health.reason


async def test_alertmanager_unexpected_shape_is_a_source_error() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={"alerts": []}))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(SourceError, match="unexpected response"):
            await AlertmanagerClient(client, "http://am.invalid").active_alerts(limit=5)
