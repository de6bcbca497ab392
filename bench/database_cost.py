"""Item 5: SQL statements and transactions per chat run, counted with SQLAlchemy engine events."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from bench.figures import ItemResult, Target
from bench.load import chat_run, client
from bench.plan import BenchContext
from bench.serving import Endpoints, bench_settings, database, served, services
from persistence.transactions import transaction_engines

TARGET = Target("<=", 6)


class StatementCounter:
    """Counts statements, commits and rollbacks on one engine while attached."""

    def __init__(self) -> None:
        self.statements = 0
        self.commits = 0
        self.rollbacks = 0

    def attach(self, engine: sa.Engine) -> None:
        sa.event.listen(engine, "before_cursor_execute", self._statement)
        sa.event.listen(engine, "commit", self._commit)
        sa.event.listen(engine, "rollback", self._rollback)

    def detach(self, engine: sa.Engine) -> None:
        sa.event.remove(engine, "before_cursor_execute", self._statement)
        sa.event.remove(engine, "commit", self._commit)
        sa.event.remove(engine, "rollback", self._rollback)

    def _statement(self, *_: Any) -> None:
        self.statements += 1

    def _commit(self, *_: Any) -> None:
        self.commits += 1

    def _rollback(self, *_: Any) -> None:
        self.rollbacks += 1


async def measure(kind: str, endpoints: Endpoints, runs: int) -> dict[str, float]:
    """Per-run statements, commits and rollbacks over `runs` sequential chat runs."""
    counter = StatementCounter()
    with database(kind, endpoints) as url:
        async with served(bench_settings(url)) as (app, base), client() as http:
            await chat_run(http, base)  # warm-up: start-up queries are not a run's cost
            # SQLite runs the store's transactions on an engine of their own thread
            engines = transaction_engines(services(app).engine)
            for engine in engines:
                counter.attach(engine)
            try:
                outcomes = [(await chat_run(http, base)).outcome for _ in range(runs)]
            finally:
                for engine in engines:
                    counter.detach(engine)
    return {
        "statements": counter.statements / runs,
        "transactions": counter.commits / runs,
        "rollbacks": counter.rollbacks / runs,
        "completed": float(sum(1 for o in outcomes if o)),
    }


async def run(ctx: BenchContext) -> ItemResult:
    result = ItemResult("database_cost", "Database cost per chat run")
    for kind in ("sqlite", "postgres"):
        figures = await measure(kind, ctx.endpoints, ctx.sizes.db_cost_runs)
        result.add(f"{kind} statements per run", figures["statements"], "stmts")
        result.add(f"{kind} transactions (commits) per run", figures["transactions"], "tx", TARGET)
        result.details[kind] = figures
    return result
