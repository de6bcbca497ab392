"""Live state is never served to a later question from the shared cache: which targets are down (and a
database's sessions and locks) can change within the cache's seconds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.unit.tools.test_toolbox import NOW, FakeMetrics, _run, _series
from tools.base import MetricMetadata, Rule, ScrapeTarget, Sources, TimeWindow
from tools.evidence_store import EvidenceCache
from tools.limits import ToolLimits
from tools.toolbox import Toolbox


class TargetsMetrics(FakeMetrics):
    def __init__(self) -> None:
        super().__init__(_series(5))
        self.health_now = "up"
        self.target_calls = 0

    async def metric_names(self, *, match: Sequence[str], window: TimeWindow, limit: int) -> list[str]:
        return []

    async def label_names(self, *, window: TimeWindow, limit: int) -> list[str]:
        return []

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        return []

    async def metadata(self, *, metric: str) -> MetricMetadata | None:
        return None

    async def rules(self, *, limit: int) -> list[Rule]:
        return []

    async def targets(self, *, limit: int) -> list[ScrapeTarget]:
        self.target_calls += 1
        labels = {"job": "exporter", "instance": "box-1"}
        return [ScrapeTarget(labels=labels, health=self.health_now, last_scrape=NOW)]


async def test_a_target_that_went_down_is_seen_by_the_next_run_not_served_from_the_cache() -> None:
    metrics = TargetsMetrics()
    toolbox = Toolbox(Sources(metrics=metrics), ToolLimits(), EvidenceCache(ttl_s=30, capacity=16))
    args: dict[str, Any] = {}
    first = await toolbox.call("list_targets", args, _run())
    metrics.health_now = "down"
    second = await toolbox.call("list_targets", args, _run())
    assert metrics.target_calls == 2
    assert "down" in second.summary and "down" not in first.summary.split(";", 1)[-1]
    # Within one run the answer is shared: the same question asked twice reads once.
    run = _run()
    await toolbox.call("list_targets", args, run)
    await toolbox.call("list_targets", args, run)
    assert metrics.target_calls == 3
    # Other metric reads still share the cache between runs.
    await toolbox.call("query_promql", {"promql": "up"}, _run())
    await toolbox.call("query_promql", {"promql": "up"}, _run())
    assert len([c for c in metrics.calls if c.get("promql") == "up"]) == 1


async def test_runs_reading_unchanged_live_state_share_one_copy_of_it() -> None:
    """Every run re-reads, but an answer equal to the latest read is held once, not once per run: a
    storm of questions about the same firing alerts does not multiply them in memory."""
    metrics = TargetsMetrics()
    toolbox = Toolbox(Sources(metrics=metrics), ToolLimits(), EvidenceCache(ttl_s=30, capacity=16))
    first = await toolbox.call("list_targets", {}, _run())
    second = await toolbox.call("list_targets", {}, _run())
    assert metrics.target_calls == 2
    assert second.data is first.data
    metrics.health_now = "down"
    changed = await toolbox.call("list_targets", {}, _run())
    assert changed.data is not first.data and changed.data != first.data
    assert "down" in changed.summary


async def test_a_later_question_reads_again_and_questions_asked_together_share() -> None:
    """An answer computed before a run opened (past the slack) is not served to it: a question asked
    four seconds after another must see the error lines written in between. Runs that open within
    the slack of each other (a storm of one question) still share one read."""
    now = [100.0]
    metrics = TargetsMetrics()
    cache = EvidenceCache(ttl_s=30, capacity=16, clock=lambda: now[0])
    toolbox = Toolbox(Sources(metrics=metrics), ToolLimits(), cache)

    def reads() -> int:
        return len([c for c in metrics.calls if c.get("promql") == "up"])

    await toolbox.call("query_promql", {"promql": "up"}, _run())
    now[0] += 0.5
    await toolbox.call("query_promql", {"promql": "up"}, _run())
    assert reads() == 1  # within the slack: shared
    now[0] += 4.0
    later = _run()
    await toolbox.call("query_promql", {"promql": "up"}, later)
    assert reads() == 2  # four seconds later: read again
    now[0] += 10.0
    await toolbox.call("query_promql", {"promql": "up"}, later)
    assert reads() == 2  # the same run asking twice reads once
