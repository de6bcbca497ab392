"""The scale-out item's CPU split: /proc read per process and per machine, spread over runs."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from bench.cpu_split import CpuSnapshot, _process_cpu, cpu_per_run, snapshot
from bench.machine import cpu_bound_neighbour


async def test_a_busy_process_counted_as_a_worker_shows_its_cpu_per_run_and_is_gone_after() -> None:
    async with cpu_bound_neighbour() as pid:
        await asyncio.sleep(0.2)  # let it start
        before, started = snapshot(), time.perf_counter()
        await asyncio.sleep(0.6)
        after, wall = snapshot(), time.perf_counter() - started
    split = cpu_per_run(before, after, runs=3, workers={pid}, client=os.getpid())
    # A CPU-bound process gets a good share of a core even on a busy 2-core machine, and never
    # more than one core; /proc counts in clock ticks (10 ms).
    assert 0.25 * wall * 1000 / 3 <= split.workers_ms <= (wall + 0.02) * 1000 / 3
    assert split.client_ms < split.workers_ms  # this test only sleeps meanwhile
    assert not await asyncio.to_thread(Path(f"/proc/{pid}").exists)


def test_cpu_is_split_by_worker_pid_client_pid_and_database_command_names() -> None:
    before = CpuSnapshot(
        {
            1: ("python", 1.0),
            2: ("python", 0.0),
            3: ("postgres", 0.5),
            4: ("kworker", 0.0),
            6: ("bash", 5.0),  # ends during the phase; a new backend gets its pid
        },
        10.0,
        5.0,
    )
    after = CpuSnapshot(
        {
            1: ("python", 1.4),  # a worker
            2: ("python", 0.1),  # the client
            3: ("postgres", 0.6),  # a backend that existed before
            5: ("redis-server", 0.1),  # one that started during the phase
            6: ("postgres", 0.05),
            4: ("kworker", 0.2),
        },
        11.0,
        5.5,
    )
    split = cpu_per_run(before, after, runs=10, workers={1}, client=2)
    # 1.0 s busy on the machine: 0.4 worker, 0.1 client, 0.1 + 0.1 + 0.05 databases, the rest 0.25.
    assert round(split.workers_ms, 6) == 40.0
    assert round(split.client_ms, 6) == 10.0
    assert round(split.databases_ms, 6) == 25.0
    assert round(split.other_ms, 6) == 25.0
    assert round(split.idle_ms, 6) == 50.0


def test_a_command_name_with_spaces_and_parentheses_is_read_whole() -> None:
    ticks = os.sysconf("SC_CLK_TCK")
    fields = ["S"] + ["0"] * 10 + [str(3 * ticks), str(ticks)] + ["0"] * 30
    name, seconds = _process_cpu(f"42 (odd (name) here) {' '.join(fields)}")
    assert (name, seconds) == ("odd (name) here", 4.0)
