"""Keeps the bench code from rotting: one quick item (database cost, two runs on SQLite)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.database_cost import measure
from bench.machine import two_cores_speedup
from bench.serving import Endpoints


async def test_database_cost_counts_statements_and_transactions_of_real_runs() -> None:
    figures = await measure("sqlite", Endpoints(pg_url="", redis_url=""), runs=2)
    assert figures["completed"] == 2
    assert figures["statements"] >= figures["transactions"] >= 1


def test_the_bench_command_runs_an_item_in_a_process_of_its_own_and_writes_the_table_and_json(
    tmp_path: Path,
) -> None:
    out = tmp_path / "bench.json"
    finished = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--only", "database_cost", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )
    document = json.loads(out.read_text())
    (item,) = document["items"]
    assert item["item"] == "database_cost" and item["seconds"] > 0
    assert "| database_cost |" in finished.stdout
    # Without a reachable PostgreSQL the item reports its error and the command exits 1.
    assert finished.returncode == (1 if item.get("error") else 0)


async def test_the_machine_ceiling_compares_two_cpu_jobs_at_once_with_one() -> None:
    # Two jobs on two cores: between "no gain" and "perfect", with wide room for this VM's drift.
    assert 0.5 < await two_cores_speedup(iterations=300_000) < 3.0
