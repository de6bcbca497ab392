"""What one chat costs the database: a typical run (well under a second on the rule-based analyst)
stays within 6 transactions now that a live run's rows are also stored in batches, on SQLite and
PostgreSQL. Counted by a SQLAlchemy event listener on the service's own engine (and, on SQLite, on
the engine of the thread its store transactions run in)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from api.app import create_app
from api.settings import Settings
from persistence.transactions import transaction_engines
from tests.support.app_state import services_of

MAX_TRANSACTIONS = 6  # batching keeps a typical sub-second run at 6 transactions at most


@pytest.mark.parametrize("query", ["why is billing failing?", "hello"])
async def test_a_typical_chat_run_costs_at_most_six_transactions(app_database_url: str, query: str) -> None:
    app = create_app(Settings(database_url=app_database_url))
    async with app.router.lifespan_context(app):
        services = services_of(app)
        began: list[Any] = []
        for engine in transaction_engines(services.engine):
            sa.event.listen(engine, "begin", began.append)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            text = (await client.post("/api/chat", json={"sessionId": "s-tx", "query": query})).text
            if services.chat.lifecycle.active:  # the run's task ends just after `done` is sent
                await asyncio.wait(services.chat.lifecycle.active, timeout=10)
            counted = len(began)
            trace = await client.get("/api/chat/session/s-tx/runs")
        summary = trace.json()["data"][0]
    assert '"outcome":"SUCCESS"' in text or '"outcome":"FALLBACK"' in text
    assert summary["status"] == "SUCCESS" and summary["stepCount"] > 0
    assert 0 < counted <= MAX_TRANSACTIONS, f"{counted} transactions for one run"
