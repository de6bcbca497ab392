"""The evidence store and cache on their own: ids per run, LRU capacity, the shell command."""

from __future__ import annotations

import json
from pathlib import Path

from tools.base import EvidenceSource, EvidenceStatus, Sources
from tools.cli import run_evidence_command
from tools.evidence_store import EvidenceCache, RunEvidence, ToolOutcome
from tools.limits import ToolLimits
from tools.sql.fixture import SqliteWorldDatasources
from tools.toolbox import Toolbox


def _outcome(source: EvidenceSource, size: int = 10) -> ToolOutcome:
    return ToolOutcome(source, "t", "title", "summary", {}, {}, EvidenceStatus.OK, bytes=size)


def test_ids_count_per_source_within_a_run() -> None:
    run = RunEvidence(budget_bytes=1_000)
    ids = [run.record(_outcome(s)).id for s in (EvidenceSource.SQL, EvidenceSource.LOGS, EvidenceSource.SQL)]
    assert ids == ["sql-1", "logs-1", "sql-2"]
    assert [e.id for e in run.all()] == ids
    assert run.total_bytes == 30


async def test_cache_evicts_least_recently_used() -> None:
    cache = EvidenceCache(ttl_s=100, capacity=2)
    calls: list[str] = []

    async def compute(key: str) -> ToolOutcome:
        calls.append(key)
        return _outcome(EvidenceSource.SQL)

    for key in ("a", "b", "a", "c", "a", "b"):
        await cache.get_or_compute(key, lambda key=key: compute(key))  # type: ignore[misc]
    assert calls == ["a", "b", "c", "b"]
    assert len(cache) == 2


def test_limits_map_from_a_settings_dump() -> None:
    limits = ToolLimits.from_mapping({"max_rows": 5, "sql_datasources": {"x": "secret"}})
    assert limits.max_rows == 5


async def test_evidence_command_prints_json(tmp_path: Path) -> None:
    (tmp_path / "shop.sql").write_text("CREATE TABLE t (a INT); INSERT INTO t VALUES (7);")
    sources = Sources(sql=SqliteWorldDatasources(tmp_path))
    toolbox = Toolbox(sources, ToolLimits(), EvidenceCache(ttl_s=30, capacity=16))
    text = await run_evidence_command(
        toolbox, "query_mysql", {"datasource": "shop", "statement": "SELECT a FROM t"}
    )
    item = json.loads(text)
    assert item["id"] == "sql-1"
    assert item["status"] == "OK"
    assert item["data"]["rows"] == [[7]]
