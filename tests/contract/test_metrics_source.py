"""One contract for MetricsSource, run against the world fixture and a real Prometheus.

Both serve the same world (tests/support/world_builder.py); every assertion is shared. The real
side loads the history with promtool and skips locally (fails in CI) without the binaries.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from tests.support.live_server import free_port
from tests.support.prometheus import running_prometheus
from tests.support.world_builder import (
    ERRORS_AFTER,
    ERRORS_BEFORE,
    LATENCY_AFTER,
    LATENCY_BEFORE,
    build_contract_world,
)
from tools.base import EvidenceStatus, MetricsSource, SourceError, Sources, TimeWindow
from tools.limits import ToolLimits
from tools.prometheus import PrometheusClient, PrometheusFixture
from tools.prometheus.alert_history import AlertHistoryArgs, alert_history
from tools.toolbox.spec import ToolContext
from tools.world import World, load_world

LATENCY = 'app_request_latency_seconds{service="ledger"}'


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    # Relative to the wall clock: Prometheus only serves history inside its retention.
    built = build_contract_world(tmp_path_factory.mktemp("world"), datetime.now(UTC))
    return load_world(built.path)


@pytest.fixture(scope="module")
def prometheus_url(world: World, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_prometheus(world, Path(tmp_path_factory.mktemp("prometheus"))) as url:
        yield url


@pytest.fixture(params=["fixture", pytest.param("prometheus", marks=pytest.mark.prometheus)])
async def source(request: pytest.FixtureRequest, world: World) -> AsyncIterator[MetricsSource]:
    if request.param == "fixture":
        yield PrometheusFixture(world)
        return
    url = request.getfixturevalue("prometheus_url")
    async with httpx.AsyncClient() as client:
        yield PrometheusClient(client, url)


def last(world: World, minutes: int) -> TimeWindow:
    return TimeWindow(start=world.now - timedelta(minutes=minutes), end=world.now)


async def test_source_is_healthy_and_tells_time(source: MetricsSource, world: World) -> None:
    assert (await source.health()).ok
    now = await source.now()
    assert now.tzinfo is not None
    assert now >= world.now


async def test_list_series_finds_every_series_in_the_window(source: MetricsSource, world: World) -> None:
    refs = await source.list_series(match=None, window=last(world, 60), limit=100)

    found = {(ref.metric, tuple(sorted(ref.labels.items()))) for ref in refs}
    # Every firing alert is an `ALERTS` series too, as a rule evaluation writes it.
    firing = {
        ("ALERTS", tuple(sorted({**alert.labels, "alertstate": "firing"}.items())))
        for alert in world.alerts
        if alert.active_at(world.now)
    }
    assert found == {
        ("app_queue_depth", (("pool", "main"), ("service", "relay"))),
        ("app_request_errors_ratio", (("service", "ledger"),)),
        ("app_request_latency_seconds", (("quantile", "0.99"), ("service", "ledger"))),
        ("app_request_latency_seconds", (("quantile", "0.99"), ("service", "relay"))),
        *firing,
    }


async def test_list_series_narrows_by_selector_and_limit(source: MetricsSource, world: World) -> None:
    ledger = await source.list_series(match='{service="ledger"}', window=last(world, 60), limit=100)
    capped = await source.list_series(match=None, window=last(world, 60), limit=2)

    assert {ref.metric for ref in ledger} == {
        "ALERTS",  # the ledger alert's firing series
        "app_request_latency_seconds",
        "app_request_errors_ratio",
    }
    assert all(ref.labels["service"] == "ledger" for ref in ledger)
    assert len(capped) == 2


async def test_list_series_outside_history_is_empty(source: MetricsSource, world: World) -> None:
    long_before = TimeWindow(world.now - timedelta(days=3), world.now - timedelta(days=2))

    assert await source.list_series(match=None, window=long_before, limit=100) == []


async def test_query_range_shows_the_step_change(source: MetricsSource, world: World) -> None:
    window = last(world, 60)

    [series] = await source.query_range(promql=LATENCY, window=window, step_s=60, max_series=10)

    assert series.metric == "app_request_latency_seconds"
    assert dict(series.labels) == {"service": "ledger", "quantile": "0.99"}
    stamps = [ts for ts, _ in series.samples]
    assert stamps == [window.start.timestamp() + 60 * i for i in range(61)]
    change = (world.now - timedelta(minutes=30)).timestamp()
    assert {value for ts, value in series.samples if ts < change} == {LATENCY_BEFORE}
    assert {value for ts, value in series.samples if ts >= change} == {LATENCY_AFTER}


async def test_query_range_downsamples_to_the_step(source: MetricsSource, world: World) -> None:
    window = last(world, 60)
    promql = 'app_request_errors_ratio{service="ledger"}'

    [series] = await source.query_range(promql=promql, window=window, step_s=600, max_series=10)

    assert [ts for ts, _ in series.samples] == [window.start.timestamp() + 600 * i for i in range(7)]
    assert [value for _, value in series.samples] == [ERRORS_BEFORE] * 3 + [ERRORS_AFTER] * 4


@pytest.mark.parametrize(
    ("promql", "expected"),
    [
        (
            '{__name__=~"app_request_.*", service="ledger"}',
            {("app_request_errors_ratio", "ledger"), ("app_request_latency_seconds", "ledger")},
        ),
        (
            'app_request_latency_seconds{service!="ledger"}',
            {("app_request_latency_seconds", "relay")},
        ),
        (
            'app_request_latency_seconds{service=~"led.*"}',
            {("app_request_latency_seconds", "ledger")},
        ),
        (
            '{__name__=~"app_.*", service!~"led.*"}',
            {("app_queue_depth", "relay"), ("app_request_latency_seconds", "relay")},
        ),
        ('app_queue_depth{pool="spare"}', set()),
        ("no_such_metric", set()),
    ],
)
async def test_query_range_applies_every_matcher(
    source: MetricsSource, world: World, promql: str, expected: set[tuple[str, str]]
) -> None:
    result = await source.query_range(promql=promql, window=last(world, 30), step_s=300, max_series=10)

    assert {(series.metric, series.labels["service"]) for series in result} == expected


async def test_query_range_caps_the_series_count(source: MetricsSource, world: World) -> None:
    result = await source.query_range(
        promql='{__name__=~"app_.*"}', window=last(world, 30), step_s=300, max_series=2
    )

    assert len(result) == 2


async def test_malformed_query_is_rejected_safely(source: MetricsSource, world: World) -> None:
    with pytest.raises(SourceError) as raised:
        await source.query_range(
            promql='app_request_latency_seconds{service="ledger"',
            window=last(world, 30),
            step_s=60,
            max_series=10,
        )

    assert raised.value.status is EvidenceStatus.REJECTED
    assert "parse error" not in raised.value.public  # the backend's own text never leaks


async def test_query_instant_reads_the_value_at_the_moment(source: MetricsSource, world: World) -> None:
    before = world.now - timedelta(minutes=40)
    after = world.now - timedelta(minutes=10)

    [old] = await source.query_instant(promql=LATENCY, at=before, max_series=10)
    [new] = await source.query_instant(promql=LATENCY, at=after, max_series=10)

    assert old.metric == "app_request_latency_seconds"
    assert dict(old.labels) == {"service": "ledger", "quantile": "0.99"}
    assert list(old.samples) == [(before.timestamp(), LATENCY_BEFORE)]
    assert list(new.samples) == [(after.timestamp(), LATENCY_AFTER)]


async def test_query_instant_between_samples_takes_the_latest_one(
    source: MetricsSource, world: World
) -> None:
    # 30 s after the change sample, 30 s before the next one: the change sample answers.
    at = world.now - timedelta(minutes=30) + timedelta(seconds=30)
    promql = 'app_request_errors_ratio{service="ledger"}'

    [series] = await source.query_instant(promql=promql, at=at, max_series=10)

    assert list(series.samples) == [(at.timestamp(), ERRORS_AFTER)]


async def test_query_instant_looks_back_five_minutes(source: MetricsSource, world: World) -> None:
    # The history ends at `now`: a sample four minutes old still answers, six minutes old not.
    within = world.now + timedelta(minutes=4)
    beyond = world.now + timedelta(minutes=6)
    before_history = world.now - timedelta(hours=4)

    [series] = await source.query_instant(promql=LATENCY, at=within, max_series=10)

    assert list(series.samples) == [(within.timestamp(), LATENCY_AFTER)]
    assert await source.query_instant(promql=LATENCY, at=beyond, max_series=10) == []
    assert await source.query_instant(promql=LATENCY, at=before_history, max_series=10) == []


@pytest.mark.parametrize(
    ("promql", "expected"),
    [
        (
            '{__name__=~"app_.*", service!="ledger"}',
            {("app_queue_depth", "relay"), ("app_request_latency_seconds", "relay")},
        ),
        (
            'app_request_latency_seconds{quantile="0.99", service=~"rel.*"}',
            {("app_request_latency_seconds", "relay")},
        ),
        ("no_such_metric", set()),
    ],
)
async def test_query_instant_applies_every_matcher(
    source: MetricsSource, world: World, promql: str, expected: set[tuple[str, str]]
) -> None:
    result = await source.query_instant(promql=promql, at=world.now, max_series=10)

    assert {(series.metric, series.labels["service"]) for series in result} == expected
    assert all(len(series.samples) == 1 for series in result)


async def test_query_instant_caps_and_orders_the_series(source: MetricsSource, world: World) -> None:
    result = await source.query_instant(promql='{__name__=~"app_.*"}', at=world.now, max_series=3)

    assert [(series.metric, series.labels["service"]) for series in result] == [
        ("app_queue_depth", "relay"),
        ("app_request_errors_ratio", "ledger"),
        ("app_request_latency_seconds", "ledger"),
    ]


async def test_malformed_instant_query_is_rejected_safely(source: MetricsSource, world: World) -> None:
    with pytest.raises(SourceError) as raised:
        await source.query_instant(
            promql='app_request_latency_seconds{service="ledger"', at=world.now, max_series=10
        )

    assert raised.value.status is EvidenceStatus.REJECTED
    assert "parse error" not in raised.value.public


async def test_label_values_discover_services(source: MetricsSource, world: World) -> None:
    assert isinstance(source, PrometheusFixture | PrometheusClient)

    services = await source.label_values(label="service", window=last(world, 60), limit=10)
    names = await source.label_values(label="__name__", window=last(world, 60), limit=10)

    assert services == ["ledger", "relay"]
    assert names == ["ALERTS", "app_queue_depth", "app_request_errors_ratio", "app_request_latency_seconds"]


async def test_fixture_refuses_expressions_beyond_its_subset(world: World) -> None:
    # Selectors, rates, aggregations by labels and histogram quantiles are served; arithmetic is not.
    with pytest.raises(SourceError, match="unsupported expression in fixture backend"):
        await PrometheusFixture(world).query_range(
            promql=f"{LATENCY} * 2", window=last(world, 30), step_s=60, max_series=10
        )


# --- the real client's failure paths: safe messages, bounded reads ----------------------------

SECRET = "db password hunter2 in /etc/secret"


@pytest.mark.parametrize(
    ("status", "body", "expected_status", "expected_text"),
    [
        (
            400,
            {"status": "error", "errorType": "bad_data", "error": SECRET},
            EvidenceStatus.REJECTED,
            "rejected the query (HTTP 400, bad_data)",
        ),
        (
            422,
            {"status": "error", "errorType": "execution", "error": SECRET},
            EvidenceStatus.REJECTED,
            "HTTP 422, execution",
        ),
        (
            500,
            {"status": "error", "errorType": "internal", "error": SECRET},
            EvidenceStatus.ERROR,
            "failed (HTTP 500, internal)",
        ),
        (
            503,
            {"status": "error", "errorType": "unavailable", "error": SECRET},
            EvidenceStatus.UNAVAILABLE,
            "unavailable",
        ),
        (
            503,
            {"status": "error", "errorType": "timeout", "error": SECRET},
            EvidenceStatus.TIMEOUT,
            "timed out",
        ),
        (
            502,
            {"status": "error", "errorType": SECRET, "error": SECRET},
            EvidenceStatus.ERROR,
            "failed (HTTP 502)",
        ),
    ],
)
@pytest.mark.parametrize("kind", ["range", "instant"])
async def test_http_errors_become_safe_source_errors(
    world: World,
    kind: str,
    status: int,
    body: dict[str, str],
    expected_status: EvidenceStatus,
    expected_text: str,
) -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(status, json=body))
    async with httpx.AsyncClient(transport=transport) as client:
        prometheus = PrometheusClient(client, "http://prometheus.invalid")
        with pytest.raises(SourceError) as raised:
            if kind == "range":
                await prometheus.query_range(promql=LATENCY, window=last(world, 5), step_s=60, max_series=5)
            else:
                await prometheus.query_instant(promql=LATENCY, at=world.now, max_series=5)

    assert raised.value.status is expected_status
    assert expected_text in raised.value.public
    assert "hunter2" not in raised.value.public


async def test_unreachable_prometheus_is_unavailable_and_unhealthy(world: World) -> None:
    async with httpx.AsyncClient() as client:
        prometheus = PrometheusClient(client, f"http://127.0.0.1:{free_port()}", timeout_s=2)
        health = await prometheus.health()
        with pytest.raises(SourceError) as raised:
            await prometheus.list_series(match=None, window=last(world, 5), limit=5)

    assert not health.ok
    assert health.reason == "Prometheus is unreachable"
    assert raised.value.status is EvidenceStatus.UNAVAILABLE


async def test_oversize_body_is_refused_after_reading_at_most_the_cap(world: World) -> None:
    chunk = b"x" * 16_384
    sent: list[int] = []

    async def endless() -> AsyncIterator[bytes]:
        while True:  # a body without end: only the cap stops the read
            sent.append(len(chunk))
            yield chunk

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=endless()))
    async with httpx.AsyncClient(transport=transport) as client:
        prometheus = PrometheusClient(client, "http://prometheus.invalid", max_bytes=65_536)
        with pytest.raises(SourceError, match="exceeded the 65536-byte cap"):
            await prometheus.query_range(promql=LATENCY, window=last(world, 5), step_s=60, max_series=5)

    assert sum(sent) <= 65_536 + 2 * len(chunk)


async def test_declared_oversize_body_is_refused_unread(world: World) -> None:
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, headers={"Content-Length": "999999999"}, content=b"{}")
    )
    async with httpx.AsyncClient(transport=transport) as client:
        prometheus = PrometheusClient(client, "http://prometheus.invalid", max_bytes=1_024)
        with pytest.raises(SourceError, match="byte cap"):
            await prometheus.list_series(match=None, window=last(world, 5), limit=5)


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (httpx.Response(200, content=b"<html>not json</html>"), "not JSON"),
        (
            httpx.Response(200, json={"status": "success", "data": {"resultType": "vector"}}),
            "unexpected response",
        ),
        (httpx.Response(200, json={"status": "error"}), "unexpected response"),
    ],
)
async def test_malformed_bodies_become_source_errors(
    world: World, response: httpx.Response, expected: str
) -> None:
    transport = httpx.MockTransport(lambda request: response)
    async with httpx.AsyncClient(transport=transport) as client:
        prometheus = PrometheusClient(client, "http://prometheus.invalid")
        with pytest.raises(SourceError, match=expected):
            await prometheus.query_range(promql=LATENCY, window=last(world, 5), step_s=60, max_series=5)


async def test_timeout_becomes_a_timeout_status(world: World) -> None:
    def stall(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("stalled", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(stall)) as client:
        prometheus = PrometheusClient(client, "http://prometheus.invalid")
        with pytest.raises(SourceError) as raised:
            await prometheus.active_alerts(limit=5)

    assert raised.value.status is EvidenceStatus.TIMEOUT


# --- the real client's instant-query shapes: vector, scalar, the time parameter ---------------


@pytest.mark.prometheus
async def test_real_prometheus_answers_a_scalar_as_one_unnamed_series(
    prometheus_url: str, world: World
) -> None:
    async with httpx.AsyncClient() as client:
        prometheus = PrometheusClient(client, prometheus_url)
        [series] = await prometheus.query_instant(promql=f"scalar({LATENCY}) * 2", at=world.now, max_series=5)

    assert (series.metric, dict(series.labels)) == ("", {})
    assert list(series.samples) == [(world.now.timestamp(), LATENCY_AFTER * 2)]


async def test_instant_query_sends_the_time_and_parses_a_vector(world: World) -> None:
    seen: list[httpx.Request] = []
    body = {
        "status": "success",
        "data": {
            "resultType": "vector",
            "result": [
                {"metric": {"__name__": "up", "job": "b"}, "value": [1_700_000_000.5, "1"]},
                {"metric": {"__name__": "up", "job": "a"}, "value": [1_700_000_000.5, "NaN"]},
            ],
        },
    }

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=body)

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        prometheus = PrometheusClient(client, "http://prometheus.invalid/")
        result = await prometheus.query_instant(promql="up", at=world.now, max_series=5)

    [request] = seen
    assert request.url.path == "/api/v1/query"
    assert request.url.params["query"] == "up"
    assert float(request.url.params["time"]) == world.now.timestamp()
    assert [dict(series.labels) for series in result] == [{"job": "a"}, {"job": "b"}]
    assert [series.metric for series in result] == ["up", "up"]
    assert list(result[1].samples) == [(1_700_000_000.5, 1.0)]
    assert math.isnan(result[0].samples[0][1])


@pytest.mark.parametrize(
    "data",
    [
        {"resultType": "matrix", "result": []},
        {"resultType": "string", "result": [1.0, "text"]},
        {"resultType": "vector", "result": [{"metric": {}, "value": ["x"]}]},
        {"resultType": "scalar"},
    ],
)
async def test_unexpected_instant_results_become_source_errors(world: World, data: dict[str, object]) -> None:
    body = {"status": "success", "data": data}
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=body))
    async with httpx.AsyncClient(transport=transport) as client:
        prometheus = PrometheusClient(client, "http://prometheus.invalid")
        with pytest.raises(SourceError, match="unexpected response"):
            await prometheus.query_instant(promql="up", at=world.now, max_series=5)


async def test_alert_history_tells_a_resolved_alert_from_a_firing_one(
    source: MetricsSource, world: World
) -> None:
    """`ALERTS` is the only record of an alert that resolved: the fixture serves what a rule
    evaluation writes, a real Prometheus what it holds (backfilled here, so its lookback may carry
    the last point up to five minutes on)."""
    context = ToolContext(sources=Sources(metrics=source), limits=ToolLimits(), now=world.now)

    answer = await alert_history(context, AlertHistoryArgs(window_minutes=180))

    by_name = {item["labels"]["alertname"]: item for item in answer.data["history"]}
    restarted = by_name["RelayRestarted"]
    assert not restarted["firing_now"]
    [episode] = restarted["episodes"]
    started, ended = (datetime.fromisoformat(episode[key]) for key in ("startsAt", "endsAt"))
    assert abs(started - (world.now - timedelta(hours=2))) <= timedelta(minutes=1)
    assert world.now - timedelta(minutes=90) <= ended <= world.now - timedelta(minutes=84)
    assert by_name["RelayQueueBacklog"]["firing_now"]
    assert by_name["RelayQueueBacklog"]["episodes"][-1]["endsAt"] is None
    assert "RelayRestarted fired once" in answer.summary
