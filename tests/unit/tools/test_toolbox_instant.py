"""The `query_promql_instant` tool: bounds, evidence shape, safe failures, and the fixture world."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.support.world_builder import LATENCY_AFTER, LATENCY_BEFORE, build_contract_world
from tools.base import (
    EvidenceSource,
    EvidenceStatus,
    Series,
    SeriesRef,
    SourceError,
    SourceHealth,
    Sources,
    TimeWindow,
)
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.prometheus import PrometheusFixture
from tools.toolbox import Toolbox
from tools.toolbox.catalog import LANE_OF_TOOL, TOOLS_BY_NAME
from tools.world import load_world

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
TOOL = "query_promql_instant"


class InstantMetrics:
    """A metrics source whose instant queries answer `series` at the asked time."""

    def __init__(self, values: list[tuple[str, float]] | None = None) -> None:
        self.values = values or []
        self.calls: list[dict[str, Any]] = []
        self.error: Exception | None = None

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    async def now(self) -> datetime:
        return NOW

    async def list_series(self, *, match: str | None, window: TimeWindow, limit: int) -> list[SeriesRef]:
        return []

    async def query_range(
        self, *, promql: str, window: TimeWindow, step_s: int, max_series: int
    ) -> list[Series]:
        raise AssertionError("the instant tool must not run range queries")

    async def query_instant(self, *, promql: str, at: datetime, max_series: int) -> list[Series]:
        self.calls.append({"promql": promql, "at": at, "max_series": max_series})
        if self.error is not None:
            raise self.error
        return [Series("pool_in_use", {"pod": pod}, [(at.timestamp(), value)]) for pod, value in self.values][
            :max_series
        ]


def _toolbox(metrics: InstantMetrics | None, **limits: Any) -> Toolbox:
    cache = EvidenceCache(ttl_s=30, capacity=16)
    return Toolbox(Sources(metrics=metrics), ToolLimits(**limits), cache)


def _run() -> RunEvidence:
    return RunEvidence(budget_bytes=1_000_000)


async def test_instant_query_at_now_has_the_evidence_shape() -> None:
    metrics = InstantMetrics([("a", 7.0), ("b", 12.5)])

    evidence = await _toolbox(metrics).call(TOOL, {"promql": "pool_in_use"}, _run())

    assert evidence.status is EvidenceStatus.OK
    assert evidence.source is EvidenceSource.METRICS
    assert metrics.calls[0]["at"] == NOW
    assert evidence.data == {
        "series": [
            {"metric": "pool_in_use", "labels": {"pod": "a"}, "samples": [[NOW.timestamp(), 7.0]]},
            {"metric": "pool_in_use", "labels": {"pod": "b"}, "samples": [[NOW.timestamp(), 12.5]]},
        ]
    }
    assert evidence.query["at"] == "2026-03-01T12:00:00Z"
    assert "pool_in_use{pod=b} = 12.5" in evidence.summary
    assert evidence.truncated is False


async def test_minutes_ago_moves_the_evaluation_time() -> None:
    metrics = InstantMetrics([("a", 1.0)])

    evidence = await _toolbox(metrics).call(TOOL, {"promql": "pool_in_use", "at_minutes_ago": 30}, _run())

    at = NOW - timedelta(minutes=30)
    assert metrics.calls[0]["at"] == at
    assert evidence.query["at"] == "2026-03-01T11:30:00Z"
    assert evidence.data["series"][0]["samples"] == [[at.timestamp(), 1.0]]


async def test_minutes_ago_is_bounded_by_the_maximum_range() -> None:
    metrics = InstantMetrics([("a", 1.0)])
    toolbox = _toolbox(metrics, max_range_minutes=60)

    at_bound = await toolbox.call(TOOL, {"promql": "up", "at_minutes_ago": 60}, _run())
    beyond = await toolbox.call(TOOL, {"promql": "up", "at_minutes_ago": 61}, _run())

    assert at_bound.status is EvidenceStatus.OK
    assert beyond.status is EvidenceStatus.REJECTED
    assert "at most 60" in beyond.summary
    assert beyond.data == {}
    assert len(metrics.calls) == 1


@pytest.mark.parametrize(
    "args",
    [
        {"promql": "x" * 2_001},
        {"promql": ""},
        {"promql": "up", "at_minutes_ago": -1},
        {"promql": "up", "at_minutes_ago": 100_000},
        {"promql": "up", "window_minutes": 5},
        {},
    ],
)
async def test_bad_arguments_are_refused_before_the_source(args: dict[str, Any]) -> None:
    metrics = InstantMetrics([("a", 1.0)])

    evidence = await _toolbox(metrics).call(TOOL, args, _run())

    assert evidence.status is EvidenceStatus.REJECTED
    assert evidence.data == {}
    assert metrics.calls == []


async def test_no_series_or_only_non_finite_values_are_empty() -> None:
    nothing = await _toolbox(InstantMetrics()).call(TOOL, {"promql": "up"}, _run())
    nan_only = await _toolbox(InstantMetrics([("a", math.nan)])).call(TOOL, {"promql": "x"}, _run())

    assert nothing.status is EvidenceStatus.EMPTY
    assert nothing.data == {"series": []}
    assert nan_only.status is EvidenceStatus.EMPTY
    assert nan_only.data["series"][0]["samples"] == []
    assert "no value" in nan_only.summary


async def test_series_beyond_the_cap_are_cut_and_flagged() -> None:
    metrics = InstantMetrics([(str(n), float(n)) for n in range(8)])

    evidence = await _toolbox(metrics, max_series=5).call(TOOL, {"promql": "up"}, _run())

    assert metrics.calls[0]["max_series"] == 6  # one more than kept: tells a cut answer apart
    assert len(evidence.data["series"]) == 5
    assert evidence.truncated is True


async def test_source_failures_keep_their_status_and_safe_text() -> None:
    metrics = InstantMetrics()
    metrics.error = SourceError("Prometheus rejected the query", status=EvidenceStatus.REJECTED)
    crashing = InstantMetrics()
    crashing.error = RuntimeError("password=hunter2")

    refused = await _toolbox(metrics).call(TOOL, {"promql": "up{"}, _run())
    crashed = await _toolbox(crashing).call(TOOL, {"promql": "up"}, _run())
    missing = await _toolbox(None).call(TOOL, {"promql": "up"}, _run())

    assert (refused.status, refused.summary) == (
        EvidenceStatus.REJECTED,
        "Prometheus rejected the query",
    )
    assert crashed.status is EvidenceStatus.ERROR
    assert "hunter2" not in crashed.summary
    assert missing.status is EvidenceStatus.UNAVAILABLE


async def test_tool_is_in_the_catalog_and_runs_in_the_signals_lane() -> None:
    toolbox = _toolbox(InstantMetrics([("a", 3.0)]))
    run = _run()

    assert TOOL in toolbox.tool_names()
    assert set(TOOLS_BY_NAME[TOOL].args.model_fields) == {"promql", "at_minutes_ago"}
    assert LANE_OF_TOOL[TOOL] == "signals"  # declared beside its source, not in a second map
    await toolbox.call(TOOL, {"promql": "up"}, run)
    assert run.get("metrics-1") is not None


async def test_fixture_world_answers_before_and_after_the_change(tmp_path: Path) -> None:
    built = build_contract_world(tmp_path, datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    fixture = PrometheusFixture(load_world(built.path))
    toolbox = Toolbox(Sources(metrics=fixture), ToolLimits(), EvidenceCache(ttl_s=30, capacity=16))
    promql = 'app_request_latency_seconds{service="ledger"}'

    before = await toolbox.call(TOOL, {"promql": promql, "at_minutes_ago": 40}, _run())
    after = await toolbox.call(TOOL, {"promql": promql}, _run())
    refused = await toolbox.call(TOOL, {"promql": f"{promql} * 2"}, _run())  # beyond its subset

    assert [s["samples"][0][1] for s in before.data["series"]] == [LATENCY_BEFORE]
    assert [s["samples"][0][1] for s in after.data["series"]] == [LATENCY_AFTER]
    assert after.data["series"][0]["labels"] == {"service": "ledger", "quantile": "0.99"}
    assert refused.status is EvidenceStatus.REJECTED
