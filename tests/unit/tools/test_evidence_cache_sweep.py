"""The evidence cache drops expired answers it will never be asked for again (per-run alert keys)."""

from __future__ import annotations

from tools.base import EvidenceStatus, Sources
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.toolbox import Toolbox

from .test_toolbox import FakeAlerts


async def test_alert_answers_keyed_per_run_do_not_fill_the_cache_over_many_runs() -> None:
    clock = [0.0]
    cache = EvidenceCache(ttl_s=5, capacity=1_024, clock=lambda: clock[0])
    toolbox = Toolbox(Sources(alerts=FakeAlerts()), ToolLimits(), cache)
    for _ in range(500):  # one run a second, each asking for the live alerts once
        evidence = await toolbox.call("list_alerts", {}, RunEvidence(budget_bytes=1_000_000))
        assert evidence.status is EvidenceStatus.OK
        clock[0] += 1.0
    # Only the runs of the last two TTLs may still be held, however many runs came before.
    assert len(cache) <= 10


async def test_a_sweep_keeps_answers_still_within_their_ttl() -> None:
    clock = [0.0]
    cache = EvidenceCache(ttl_s=5, capacity=16, clock=lambda: clock[0])
    toolbox = Toolbox(Sources(alerts=FakeAlerts()), ToolLimits(), cache)
    run = RunEvidence(budget_bytes=1_000_000)
    await toolbox.call("list_alerts", {}, run)
    clock[0] = 4.0
    await toolbox.call("list_alerts", {"service": "pay"}, RunEvidence(budget_bytes=1_000_000))
    clock[0] = 6.0  # past the first sweep time: the first answer expired, the second has not
    await toolbox.call("list_alerts", {"service": "cart"}, RunEvidence(budget_bytes=1_000_000))
    assert len(cache) == 2
