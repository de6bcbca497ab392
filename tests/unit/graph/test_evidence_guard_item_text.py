"""What the guard reads of one item: entity names from the JSON text, cached per item."""

from __future__ import annotations

from typing import Any

from graph.nodes.evidence_guard.item_text import ItemTextCache, _entities_in_json, _walked_entities, read_item
from tools.base import Evidence, EvidenceSource, EvidenceStatus

QUERY = {"promql": "x"}


def _item(data: dict[str, Any], evidence_id: str = "metrics-1") -> Evidence:
    return Evidence(
        id=evidence_id,
        source=EvidenceSource.METRICS,
        tool="query_promql",
        title="latency",
        summary="1 series",
        data=data,
        query=QUERY,
        status=EvidenceStatus.OK,
    )


TRICKY: dict[str, Any] = {
    "series": [
        {"labels": {"service": "Checkout", "instance": "checkout-0"}, "samples": [[1_764_490_000, 1.5]]},
        {"labels": {"app": "Zürich-API", "job": ""}, "samples": []},
    ],
    "lines": [
        {"message": 'payload {"service": "not-a-field"} and \\"host\\": \\"nope\\"'},
        {'a"service': "quoted-key", "service\\": "backslash-key", "pod": 'we"ird\\pod'},
        {"service": {"name": "nested"}, "node": ["list", {"deployment": "deep-deploy"}]},
    ],
}


def test_entities_read_from_json_text_equal_the_walk_over_the_values() -> None:
    import json

    found = _entities_in_json(json.dumps(TRICKY, ensure_ascii=False))
    assert found == _walked_entities(TRICKY)
    assert found == {"checkout", "checkout-0", "zürich-api", 'we"ird\\pod', "deep-deploy"}


def test_item_text_holds_numbers_and_iso_forms_of_unix_seconds() -> None:
    stamped = read_item(_item(TRICKY)).stamped()
    assert 1.5 in stamped.numbers and 1_764_490_000.0 in stamped.numbers
    assert stamped.iso_forms == {"2025-11-30T08:06:40"}


def test_cache_reads_shared_data_once_and_keeps_distinct_items_apart() -> None:
    cache = ItemTextCache(size=2)
    shared = {"series": [{"labels": {"service": "api"}}]}
    first = cache.read(_item(shared, "metrics-1"))
    assert cache.read(_item(shared, "metrics-7")) is first  # another run, same tool result
    other = cache.read(_item({"series": [{"labels": {"service": "db"}}]}))
    assert other is not first and other.entities == {"db"}
    cache.read(_item({"x": 1}))
    cache.read(_item({"y": 2}))
    assert cache.read(_item(shared)) is not first  # evicted: bounded
