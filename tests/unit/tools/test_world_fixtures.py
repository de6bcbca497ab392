"""Fixture-backend rules the contract world does not reach: lookback, bounds, activity edges."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.support.world_builder import write_world
from tools.alertmanager import AlertmanagerFixture
from tools.base import EvidenceStatus, LogQuery, SourceError, TimeWindow
from tools.loki import LokiFixture
from tools.prometheus import PrometheusFixture
from tools.prometheus.fixture import evaluate
from tools.world import load_world

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
HOUR = TimeWindow(NOW - timedelta(hours=1), NOW)


def test_evaluation_takes_the_latest_sample_within_the_lookback() -> None:
    samples = [(100.0, 1.0), (160.0, 2.0), (1_000.0, 3.0)]

    points = evaluate(samples, [90.0, 100.0, 159.0, 160.0, 459.0, 460.0, 1_000.0])

    # 90 precedes every sample; 460 is 300s after the sample at 160, outside the lookback.
    assert points == [(100.0, 1.0), (159.0, 1.0), (160.0, 2.0), (459.0, 2.0), (1_000.0, 3.0)]


@pytest.mark.parametrize(
    ("window", "step"),
    [
        (HOUR, 0),
        (TimeWindow(NOW, NOW - timedelta(minutes=1)), 60),
        (TimeWindow(NOW - timedelta(days=30), NOW), 60),  # over 11,000 points, as Prometheus says
    ],
)
async def test_unservable_ranges_are_rejected(tmp_path: Path, window: TimeWindow, step: int) -> None:
    metrics = PrometheusFixture(load_world(write_world(tmp_path, name="w", now=NOW, series=[])))

    with pytest.raises(SourceError) as raised:
        await metrics.query_range(promql="m", window=window, step_s=step, max_series=5)

    assert raised.value.status is EvidenceStatus.REJECTED


async def test_alerts_are_active_only_between_start_and_end(tmp_path: Path) -> None:
    def alert(name: str, **fields: str) -> dict[str, object]:
        return {"labels": {"alertname": name}, "status": "firing", **fields}

    world = load_world(
        write_world(
            tmp_path,
            name="w",
            now=NOW,
            alerts=[
                alert("Open", startsAt="2024-05-01T11:00:00Z"),
                alert("NoStart"),
                alert("Future", startsAt="2024-05-01T12:30:00Z"),
                alert("Ended", startsAt="2024-05-01T10:00:00Z", endsAt="2024-05-01T11:59:00Z"),
                alert("EndsLater", startsAt="2024-05-01T10:00:00Z", endsAt="2024-05-01T12:05:00Z"),
                {"labels": {"alertname": "Resolved"}, "status": "resolved"},
            ],
        )
    )

    alerts = await AlertmanagerFixture(world).active_alerts(limit=10)

    assert [item.labels["alertname"] for item in alerts] == ["Open", "NoStart", "EndsLater"]


async def test_log_window_includes_start_and_excludes_end(tmp_path: Path) -> None:
    def line(at: datetime, message: str) -> dict[str, str]:
        return {"ts": at.isoformat(), "service": "a", "message": message}

    world = load_world(
        write_world(
            tmp_path,
            name="w",
            now=NOW,
            logs=[
                line(HOUR.start, "at start"),
                line(NOW - timedelta(minutes=1), "inside"),
                line(NOW, "at end"),
            ],
        )
    )

    lines = await LokiFixture(world).query_range(LogQuery(window=HOUR, limit=10, service="a"))

    assert [item.message for item in lines] == ["inside", "at start"]
