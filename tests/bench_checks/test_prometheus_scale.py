"""Keeps the Prometheus scale item from rotting: three tiny TSDBs through real promtool and prometheus."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.figures import ItemResult
from bench.openmetrics import ALERT_INSTANCE, hosts_for, write_openmetrics
from bench.prometheus_scale import discovery_tools, judge, measure_sizes, size_table
from tests.support.prometheus import require_binary


def test_the_fleet_text_has_the_requested_series_and_the_alerting_host(tmp_path: Path) -> None:
    text = tmp_path / "fleet.om"
    written = write_openmetrics(text, series=2_000, timestamps=[100, 200])
    lines = text.read_text().splitlines()
    samples = [line for line in lines if not line.startswith("#")]
    assert lines[-1] == "# EOF"
    assert 2_000 <= written < 2_000 + 400  # whole hosts: at most one host past the request
    assert len(samples) == 2 * written
    assert any(f'instance="{ALERT_INSTANCE}"' in s and "node_filesystem_avail_bytes" in s for s in samples)
    assert hosts_for(100_000) > hosts_for(10_000)


@pytest.mark.prometheus
async def test_three_backfilled_sizes_give_a_row_each_with_bytes_read_from_prometheus() -> None:
    require_binary("promtool"), require_binary("prometheus")
    rows = await measure_sizes((300, 600, 1_200), repeats=1)
    table = size_table(rows).splitlines()
    assert len(table) == 2 + 3
    assert [row.series for row in rows] == sorted(row.series for row in rows)
    for row in rows:
        assert row.backfill.tsdb_bytes > 0
        assert row.discovery.bytes > 0 and row.discovery.calls >= len(discovery_tools()) >= 1
        assert row.diagnosis.bytes > 0 and row.diagnosis.calls > 0
        assert row.diagnosis.service_cpu_s > 0  # whose work it was: this process's CPU, and Prometheus's
        assert row.outcome in ("SUCCESS", "FALLBACK")
    result = ItemResult("prometheus_scale", "")
    judge(result, rows)
    ratios = [f for f in result.figures if f.unit == "x" and f.target is not None]
    assert len(ratios) == 4 and all(f.value > 0 for f in ratios)
    # Prometheus's and the service's CPU ratios for both pieces, printed without a target.
    assert sum("CPU" in f.name and f.target is None for f in result.figures) == 4
