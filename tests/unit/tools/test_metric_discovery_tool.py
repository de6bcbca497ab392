"""list_metrics through the toolbox on an exporter-labelled world, when the name index is too big."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from tests.support.exporter_world import FS_ALERT, build_exporter_world
from tools.base import EvidenceStatus, SourceError, Sources, TimeWindow
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.prometheus import PrometheusFixture
from tools.toolbox.boundary import Toolbox
from tools.world import load_world


class HugeIndex(PrometheusFixture):
    """A server whose full name list is past the byte cap; narrowed requests still answer."""

    asked: list[Sequence[str]]

    async def metric_names(self, *, match: Sequence[str], window: TimeWindow, limit: int) -> list[str]:
        self.asked.append(list(match))
        if not match:
            raise SourceError("metrics backend response exceeded the byte cap")
        return await super().metric_names(match=match, window=window, limit=limit)


async def test_a_name_index_past_the_cap_falls_back_to_the_names_asked_for(tmp_path: Path) -> None:
    built = build_exporter_world(tmp_path, datetime.now(UTC), exporter="127.0.0.1:1", ghost="127.0.0.1:2")
    source = HugeIndex(load_world(built.path))
    source.asked = []
    toolbox = Toolbox(Sources(metrics=source), ToolLimits(), EvidenceCache(ttl_s=0.0, capacity=4))

    answer = await toolbox.call(
        "list_metrics", {"question": "is the disk full?"}, RunEvidence(budget_bytes=1_000_000)
    )

    assert answer.status is EvidenceStatus.OK
    assert [r["metric"] for r in answer.data["reads"]][:2] == [
        "node_filesystem_avail_bytes",
        "node_filesystem_size_bytes",
    ]
    assert answer.data["reads"][0]["reason"] == f"alert {FS_ALERT}"
    fallback = source.asked[1][0]
    assert fallback.startswith('{__name__=~".*disk.*|') and "node_filesystem_avail_bytes" in fallback


async def _discover(tmp_path: Path, question: str) -> tuple[Sequence[dict[str, object]], bool]:
    built = build_exporter_world(tmp_path, datetime.now(UTC), exporter="127.0.0.1:1", ghost="127.0.0.1:2")
    toolbox = Toolbox(
        Sources(metrics=PrometheusFixture(load_world(built.path))),
        ToolLimits(),
        EvidenceCache(ttl_s=0.0, capacity=4),
    )
    answer = await toolbox.call("list_metrics", {"question": question}, RunEvidence(budget_bytes=1_000_000))
    assert answer.status is EvidenceStatus.OK
    return answer.data["reads"], answer.truncated


async def test_reads_carry_the_implicated_systems_matchers_or_are_bounded(tmp_path: Path) -> None:
    reads, _ = await _discover(tmp_path, "why are requests slow and the cpu busy?")

    by_metric = {str(r["metric"]): r for r in reads}
    # The CPU counter is scraped from the alerting host: its read is that host's, not the fleet's.
    cpu = by_metric["node_cpu_seconds_total"]
    assert cpu["matchers"] == {"job": "node", "instance": "db1:9100"}
    assert 'instance="db1:9100"' in str(cpu["promql"])
    # The latency histogram is on no implicated system: Prometheus sends its highest few series only.
    latency = by_metric["http_request_duration_seconds_bucket"]
    assert latency["matchers"] == {}
    assert str(latency["promql"]).startswith("topk(10, histogram_quantile(")
    assert all(r["matchers"] or str(r["promql"]).startswith("topk(") for r in reads)


async def test_leaving_out_the_stacks_names_is_not_truncation(tmp_path: Path) -> None:
    _, truncated = await _discover(tmp_path, "is the disk full?")

    # go_goroutines and alertmanager_* are left out of the names; nothing was cut by a cap.
    assert truncated is False
