"""What two cores of this machine give pure-Python CPU work: the ceiling of the scale-out item.

The scale-out item compares one worker against two on a 2-core VM whose speed is not constant: the
same one-core job took 0.36 to 0.64 s from one minute to the next, and two such jobs at once often
ran slower each than one alone. Two CPU-bound processes against one, with no I/O and nothing shared,
show how much of "2x" the machine itself delivers at that moment; the item prints it beside the
workers' ratio.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

# A pure-Python loop of about one second here: dict writes and int-to-str, like a worker's own work.
_JOB = "d = {}\nfor i in range(%d):\n    d[i %% 1000] = str(i)\n"


async def _wall(processes: int, iterations: int) -> float:
    started = time.perf_counter()
    jobs = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", _JOB % iterations)
        for _ in range(processes)
    ]
    try:
        for job in jobs:
            if await job.wait() != 0:
                raise RuntimeError("the CPU job failed")
    finally:
        for job in jobs:
            if job.returncode is None:
                job.kill()
                await job.wait()
    return time.perf_counter() - started


async def two_cores_speedup(*, iterations: int = 4_000_000) -> float:
    """(2 jobs / wall of two at once) / (1 job / wall of one), with one job before and after the two
    so that a drift during the measurement is averaged out."""
    before = await _wall(1, iterations)
    two = await _wall(2, iterations)
    after = await _wall(1, iterations)
    return 2 * statistics.mean((before, after)) / two


@asynccontextmanager
async def cpu_bound_neighbour() -> AsyncIterator[int]:
    """A concurrent pure-Python CPU-bound process, running until the block ends; yields its pid."""
    job = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "while True:\n" + _indented(_JOB % 10**6)
    )
    try:
        yield job.pid
    finally:
        job.kill()
        await job.wait()


def _indented(code: str) -> str:
    return "".join(f"    {line}\n" for line in code.splitlines())
