"""Keeps the bench code from rotting: one quick item (database cost, two runs on SQLite)."""

from __future__ import annotations

from tests.bench.database_cost import measure
from tests.bench.serving import Endpoints


async def test_database_cost_counts_statements_and_transactions_of_real_runs() -> None:
    figures = await measure("sqlite", Endpoints(pg_url="", redis_url=""), runs=2)
    assert figures["completed"] == 2
    assert figures["statements"] >= figures["transactions"] >= 1
