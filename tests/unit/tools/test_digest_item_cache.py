"""Per-item facts are reused across digests of a growing evidence list, never across different items."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest import DigestLimits, build_digest
from tools.digest.item import ItemFactsCache, digest_item

NOW = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)


def _metrics(evidence_id: str, level_after: float, service: str = "billing") -> Evidence:
    start = NOW - timedelta(hours=2)
    values = np.full(120, 10.0)
    values[100:] = level_after
    samples = [[(start + timedelta(minutes=i)).timestamp(), float(v)] for i, v in enumerate(values)]
    series = {"metric": "queue_depth", "labels": {"service": service}, "samples": samples}
    return Evidence(evidence_id, EvidenceSource.METRICS, "query_metric", "t", "s", {"series": [series]},
                    {}, EvidenceStatus.OK)  # fmt: skip


def _failed(evidence_id: str) -> Evidence:
    return Evidence(evidence_id, EvidenceSource.LOGS, "query_logs", "t", "backend down", {}, {},
                    EvidenceStatus.UNAVAILABLE)  # fmt: skip


def test_a_growing_evidence_list_digests_as_if_from_scratch() -> None:
    first = [_metrics("metrics-1", 40.0), _failed("logs-1")]
    grown = [*first, _metrics("metrics-2", 2.0, "ledger")]
    build_digest(first, now=NOW)
    cached = build_digest(grown, now=NOW)
    rebuilt = [_metrics("metrics-1", 40.0), _failed("logs-1"), _metrics("metrics-2", 2.0, "ledger")]
    fresh = build_digest(rebuilt, now=NOW)
    assert cached == fresh
    assert [a.evidence_id for a in cached.anomalies] == ["metrics-1", "metrics-2"]
    assert [g.evidence_id for g in cached.gaps] == ["logs-1"]


def test_an_item_with_a_reused_id_but_other_data_is_read_again() -> None:
    cache = ItemFactsCache()
    limits = DigestLimits()
    up = cache.facts(_metrics("metrics-1", 40.0), now=NOW, limits=limits)
    flat = cache.facts(_metrics("metrics-1", 10.0), now=NOW, limits=limits)
    assert [a.direction for a in up.anomalies] == ["up"] and flat.anomalies == ()


def test_cached_facts_depend_on_now_and_limits() -> None:
    cache = ItemFactsCache()
    item = _metrics("metrics-1", 40.0)
    limits = DigestLimits()
    assert cache.facts(item, now=NOW, limits=limits) is cache.facts(item, now=NOW, limits=limits)
    early = NOW - timedelta(minutes=30)  # before the change: nothing to see yet
    assert cache.facts(item, now=early, limits=limits).anomalies == ()
    strict = DigestLimits(min_score=1e9)
    assert cache.facts(item, now=NOW, limits=strict).anomalies == ()
    assert cache.facts(item, now=NOW, limits=limits) == digest_item(item, now=NOW, limits=limits)


def test_the_cache_stays_bounded() -> None:
    cache = ItemFactsCache(size=2)
    items = [_metrics(f"metrics-{i}", 40.0) for i in range(3)]
    facts = [cache.facts(item, now=NOW, limits=DigestLimits()) for item in items]
    assert cache.facts(items[2], now=NOW, limits=DigestLimits()) is facts[2]
    assert cache.facts(items[0], now=NOW, limits=DigestLimits()) is not facts[0]  # evicted, rebuilt


def test_runs_sharing_one_cached_result_read_it_once_under_their_own_ids(monkeypatch: Any) -> None:
    import tools.digest.item as item_module

    reads: list[str] = []

    def counting(item: Evidence, **kwargs: Any) -> Any:
        reads.append(item.id)
        return digest_item(item, **kwargs)

    monkeypatch.setattr(item_module, "digest_item", counting)
    cache = ItemFactsCache()
    first = _metrics("metrics-1", 40.0)
    second = dataclasses.replace(first, id="metrics-7")  # another run, the same cached tool result
    other = _metrics("metrics-1", 40.0)  # equal data, but a different result
    limits = DigestLimits()
    assert [a.evidence_id for a in cache.facts(first, now=NOW, limits=limits).anomalies] == ["metrics-1"]
    assert [a.evidence_id for a in cache.facts(second, now=NOW, limits=limits).anomalies] == ["metrics-7"]
    assert cache.facts(first, now=NOW, limits=limits).anomalies[0].evidence_id == "metrics-1"
    cache.facts(other, now=NOW, limits=limits)
    assert reads == ["metrics-1", "metrics-1"]
