"""The digest knows every label value of the series and lines read (tools/digest/item.py): a system
named only there is known to the evidence, though no fact is about it."""

from __future__ import annotations

from datetime import UTC, datetime

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.build import build_digest

NOW = datetime(2027, 1, 15, 10, 0, tzinfo=UTC)


def test_the_digest_knows_every_label_value_of_the_series_read() -> None:
    series = {"metric": "queue_active", "labels": {"resourceName": "sb-ledger-prod"}, "samples": [[1, 2.0]]}
    read = Evidence(
        "metrics-2",
        EvidenceSource.METRICS,
        "read_metric",
        "",
        "",
        {"series": [series]},
        {},
        EvidenceStatus.OK,
    )
    assert "sb-ledger-prod" in build_digest([read], now=NOW).names
