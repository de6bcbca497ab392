"""One contract for MetricsCatalog (names, metadata, rules, scrape targets) and the discovery built on
it, run against the world fixture and a real Prometheus serving an exporter-labelled world.

The real side backfills the history, loads the world's alert rules with their own expressions,
scrapes a tiny exporter (which gives Prometheus its metadata) and a target where nothing listens.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from tests.support.exporter_world import (
    FS_ALERT,
    FS_EXPR,
    FS_LABELS,
    HOST,
    METADATA,
    QUIET_ALERT,
    QUIET_EXPR,
    RESTARTED_AT,
    ExporterWorld,
    build_exporter_world,
    exposition,
)
from tests.support.live_server import free_port
from tests.support.prometheus import running_prometheus, serving_metrics
from tools.base import Evidence, EvidenceSource, EvidenceStatus, MetricsCatalog, Sources, TimeWindow
from tools.digest import build_digest
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.prometheus import PrometheusClient, PrometheusFixture
from tools.toolbox.boundary import Toolbox
from tools.world import World, load_world

WORLD_NAMES = {
    "alertmanager_alerts_received_total",
    "go_goroutines",
    "http_request_duration_seconds_bucket",
    "kv_uptime_seconds",
    "node_cpu_seconds_total",
    "node_filesystem_avail_bytes",
    "node_filesystem_size_bytes",
    "up",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> ExporterWorld:
    directory = tmp_path_factory.mktemp("exporter-world")
    exporter, ghost = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    return build_exporter_world(directory, datetime.now(UTC), exporter=exporter, ghost=ghost)


@pytest.fixture(scope="module")
def world(built: ExporterWorld) -> World:
    return load_world(built.path)


@pytest.fixture(scope="module")
def prometheus_url(
    built: ExporterWorld, world: World, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    port = int(built.exporter.rsplit(":", 1)[1])
    scrape = [("world", built.exporter), ("ghost", built.ghost)]
    with (
        serving_metrics(exposition(METADATA), port),
        running_prometheus(world, Path(tmp_path_factory.mktemp("prometheus")), scrape=scrape) as url,
    ):
        yield url


@pytest.fixture(params=["fixture", pytest.param("prometheus", marks=pytest.mark.prometheus)])
async def catalog(request: pytest.FixtureRequest, world: World) -> AsyncIterator[MetricsCatalog]:
    if request.param == "fixture":
        yield PrometheusFixture(world)
        return
    url = request.getfixturevalue("prometheus_url")
    async with httpx.AsyncClient() as client:
        yield PrometheusClient(client, url)


def last(world: World, minutes: int) -> TimeWindow:
    return TimeWindow(start=world.now - timedelta(minutes=minutes), end=world.now + timedelta(minutes=5))


async def test_metric_names_come_from_the_index_narrowed_by_selectors(
    catalog: MetricsCatalog, world: World
) -> None:
    every = await catalog.metric_names(match=[], window=last(world, 60), limit=1000)
    host = await catalog.metric_names(match=[f'{{instance="{HOST}"}}'], window=last(world, 60), limit=1000)
    either = await catalog.metric_names(
        match=['{job="checkout"}', '{job="alertmanager"}'], window=last(world, 60), limit=1000
    )

    assert set(every) >= WORLD_NAMES  # a real server adds what it scrapes itself
    # A real server also records its alerts as ALERTS series carrying the alert's labels.
    assert [name for name in host if not name.startswith("ALERTS")] == [
        "go_goroutines",
        "node_cpu_seconds_total",
        "node_filesystem_avail_bytes",
        "node_filesystem_size_bytes",
    ]
    assert either == ["alertmanager_alerts_received_total", "http_request_duration_seconds_bucket"]


async def test_metadata_is_asked_per_family(catalog: MetricsCatalog) -> None:
    histogram = await catalog.metadata(metric="http_request_duration_seconds")
    counter = await catalog.metadata(metric="node_cpu_seconds_total")

    assert histogram is not None and (histogram.type, histogram.help) == ("histogram", "Request latency.")
    assert counter is not None and counter.type == "counter"
    assert await catalog.metadata(metric="no_such_metric") is None


async def test_rules_carry_their_expression_and_firing_alerts(catalog: MetricsCatalog) -> None:
    rules = {rule.name: rule for rule in await catalog.rules(limit=50)}

    assert (rules[FS_ALERT].kind, rules[FS_ALERT].expr) == ("alerting", FS_EXPR)
    assert rules[QUIET_ALERT].expr == QUIET_EXPR
    assert not [alert for alert in rules[QUIET_ALERT].alerts if alert.status == "firing"]
    [firing] = [alert for alert in rules[FS_ALERT].alerts if alert.status == "firing"]
    assert {"alertname": FS_ALERT, "instance": HOST, "mountpoint": "/data"}.items() <= firing.labels.items()


async def test_targets_report_their_health(catalog: MetricsCatalog, built: ExporterWorld) -> None:
    targets = await catalog.targets(limit=50)

    health = {(t.labels.get("job"), t.labels.get("instance")): t.health for t in targets}
    assert health == {("ghost", built.ghost): "down", ("world", built.exporter): "up"}


@pytest.fixture(params=["fixture", pytest.param("prometheus", marks=pytest.mark.prometheus)])
async def toolbox(request: pytest.FixtureRequest, world: World) -> AsyncIterator[Toolbox]:
    cache = EvidenceCache(ttl_s=0.0, capacity=8)
    if request.param == "fixture":
        yield Toolbox(Sources(metrics=PrometheusFixture(world)), ToolLimits(), cache)
        return
    url = request.getfixturevalue("prometheus_url")
    async with httpx.AsyncClient() as client:
        yield Toolbox(Sources(metrics=PrometheusClient(client, url)), ToolLimits(), cache)


def _run(world: World) -> RunEvidence:
    return RunEvidence(budget_bytes=1_000_000)


async def test_discovery_reads_the_firing_alerts_metrics_first_and_never_the_stack(
    toolbox: Toolbox, world: World
) -> None:
    answer = await toolbox.call(
        "list_metrics", {"question": "why is HostFilesystemAlmostFull firing?"}, _run(world)
    )

    reads = answer.data["reads"]
    assert [r["metric"] for r in reads[:2]] == ["node_filesystem_avail_bytes", "node_filesystem_size_bytes"]
    assert reads[0]["reason"] == f"alert {FS_ALERT}"
    assert reads[0]["matchers"] == FS_LABELS  # the alert's identity: job, instance, mountpoint, device
    assert reads[0]["type"] == "gauge"
    listed = [*answer.data["names"], *(r["metric"] for r in reads)]
    assert not [name for name in listed if name.startswith(("alertmanager_", "go_", "prometheus_"))]


async def test_counters_are_read_as_rates_and_histograms_as_quantiles(toolbox: Toolbox, world: World) -> None:
    cpu = await toolbox.call("read_metric", {"metric": "node_cpu_seconds_total"}, _run(world))
    p99 = await toolbox.call("read_metric", {"metric": "http_request_duration_seconds_bucket"}, _run(world))

    # A real server also scrapes the live exporter, whose own series join the backfilled ones once a
    # scrape lands (each run reads afresh): the backfilled host's series is the one under test.
    [rate] = [s for s in cpu.data["series"] if s["labels"].get("instance") == HOST]
    assert rate["metric"] == "rate(node_cpu_seconds_total)"
    assert rate["labels"] == {"job": "node", "instance": HOST}  # grouped by identity, cpu/mode summed
    assert abs(rate["samples"][-1][1] - 0.5) < 0.05  # 30 CPU-seconds a minute
    [latency] = [s for s in p99.data["series"] if s["labels"].get("job") == "checkout"]
    assert latency["metric"] == "p99(http_request_duration_seconds)"
    assert latency["labels"] == {"job": "checkout", "instance": "app1:8000"}
    # 99 % of requests fall at most in the +Inf bucket, whose lower bound (0.5 s) Prometheus answers.
    assert abs(latency["samples"][-1][1] - 0.5) < 0.01


async def test_rules_and_targets_tools_answer_from_the_backend(toolbox: Toolbox, world: World) -> None:
    rules = await toolbox.call("list_rules", {"firing_only": True}, _run(world))
    down = await toolbox.call("list_targets", {"health": "down"}, _run(world))

    assert [r["name"] for r in rules.data["rules"]] == [FS_ALERT]
    assert [t["labels"]["job"] for t in down.data["targets"]] == ["ghost"]


async def test_a_system_the_question_names_implicates_its_metrics(toolbox: Toolbox, world: World) -> None:
    answer = await toolbox.call("list_metrics", {"question": "what is wrong with checkout?"}, _run(world))

    reads = [(r["metric"], r["kind"], r["reason"]) for r in answer.data["reads"]]
    # The firing alert's metrics stay first; the named system's histogram follows, read as p99.
    assert reads[2] == ("http_request_duration_seconds_bucket", "histogram", "implicated")
    assert "checkout" in answer.data["identities"]["job"]
    assert "alertmanager" not in answer.data["identities"]["job"]


async def test_a_read_a_day_earlier_reads_that_window_and_says_so(toolbox: Toolbox, world: World) -> None:
    now = await toolbox.call(
        "read_metric", {"metric": "node_cpu_seconds_total", "window_minutes": 30}, _run(world)
    )
    earlier = await toolbox.call(
        "read_metric",
        {"metric": "node_cpu_seconds_total", "window_minutes": 30, "days_before": 1},
        _run(world),
    )

    def moment(value: str) -> datetime:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))

    # (a real server's "now" moves on between the two calls)
    assert abs(moment(now.query["end"]) - moment(earlier.query["end"]) - timedelta(days=1)) < timedelta(
        seconds=30
    )
    assert earlier.query["days_before"] == 1 and "days_before" not in now.query
    # The world's history is the last hour: a day earlier it holds nothing, now it does.
    assert now.data["series"] and not any(s["samples"] for s in earlier.data["series"])


async def test_a_restart_is_read_from_a_process_age_the_backend_serves(
    toolbox: Toolbox, world: World
) -> None:
    answer = await toolbox.call(
        "read_metric", {"metric": "kv_uptime_seconds", "window_minutes": 60}, _run(world)
    )
    item = Evidence(
        id="metrics-1", source=EvidenceSource.METRICS, tool="read_metric", title=answer.title, summary="",
        data=answer.data, query=answer.query, status=EvidenceStatus.OK,
    )  # fmt: skip
    (anomaly,) = build_digest([item], now=datetime.now(UTC)).anomalies
    assert anomaly.event == "restart" and anomaly.direction == "down"
    assert anomaly.change_at is not None
    began = world.now - timedelta(minutes=60 - RESTARTED_AT) - timedelta(seconds=30)
    assert abs(datetime.fromisoformat(anomaly.change_at.replace("Z", "+00:00")) - began) <= timedelta(
        seconds=90
    )
