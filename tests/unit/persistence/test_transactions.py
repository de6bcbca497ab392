"""On a SQLite file the run store's transactions run whole in one thread of their own, each opened
with BEGIN IMMEDIATE, on a connection with the application's pragmas; the engine stays usable after
`dispose()`, as an async engine is."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from persistence.db import make_engine, make_sessionmaker, upgrade_head
from persistence.runs import RunStore
from persistence.tables import RunOutcome, RunStatus
from persistence.trace_rows import StepDraft
from persistence.transactions import transaction_engines


async def test_sqlite_store_transactions_run_in_one_thread_with_begin_immediate(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'app.db'}"
    await asyncio.to_thread(upgrade_head, url)
    engine = make_engine(url)
    threads: set[str] = set()
    begins: list[str] = []

    def statement(_conn: Any, _cursor: Any, text: str, *_: Any) -> None:
        threads.add(threading.current_thread().name)
        if text.startswith("BEGIN"):
            begins.append(text)

    try:
        engines = transaction_engines(engine)
        assert len(engines) == 2  # the async engine and the store thread's own
        sa.event.listen(engines[1], "before_cursor_execute", statement)
        store = RunStore(make_sessionmaker(engine), worker_id="w")
        run = await store.open_run(session_id="s", query="why?")
        await engine.dispose()  # the next transaction gets a new thread and connection
        done = await store.finish_run(
            run_id=run.run_id,
            status=RunStatus.SUCCESS,
            outcome=RunOutcome.SUCCESS,
            steps=[StepDraft(node="n", status="ok")],
        )
        trace = await store.load_trace(session_id="s", run_id=run.run_id)
        with sqlite3.connect(tmp_path / "app.db") as check:
            assert check.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        await engine.dispose()
    assert done and trace.run.step_count == 1
    # every statement of the store ran in its thread, none on the event loop's
    assert threads and all(name.startswith("sqlite") for name in threads)
    assert begins == ["BEGIN IMMEDIATE"] * 3
