"""Where the CPU of a load phase went, read from /proc: the workers, the databases, the client, the rest.

On this 2-core machine the workers share their cores with PostgreSQL, Redis, the load client and the
kernel's loopback networking. Two workers can give at most 2 x (one worker's CPU per run) / (two
workers' CPU per run + everything else per run): the scale-out item prints those parts, so that a
miss shows which of them it comes from.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

_TICKS_PER_S = os.sysconf("SC_CLK_TCK")
_DATABASES = frozenset({"postgres", "redis-server"})
# /proc/stat's cpu line: user nice system idle iowait irq softirq steal ...; steal is time the
# hypervisor gave to other guests, used by nothing on this machine, so it is left out of both.
_IDLE_FIELDS = (3, 4)
_FIELDS_UP_TO_STEAL = 7


@dataclass(frozen=True, slots=True)
class CpuSnapshot:
    """CPU seconds used so far: by each process (with its command name) and by the whole machine."""

    processes: dict[int, tuple[str, float]]
    busy_s: float
    idle_s: float


@dataclass(frozen=True, slots=True)
class CpuPerRun:
    """Milliseconds of CPU per completed run between two snapshots, by who spent them."""

    workers_ms: float
    databases_ms: float  # PostgreSQL and Redis
    client_ms: float  # the bench process driving the load
    other_ms: float  # the kernel's network processing and everything else that was busy
    idle_ms: float

    @property
    def besides_workers_ms(self) -> float:
        return self.databases_ms + self.client_ms + self.other_ms


def snapshot() -> CpuSnapshot:
    """CPU time of every process and of the machine now."""
    processes: dict[int, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended between listing and reading
            continue
        processes[int(entry.name)] = _process_cpu(stat)
    cpu_line = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    ticks = [int(value) for value in cpu_line[:_FIELDS_UP_TO_STEAL]]
    idle = sum(ticks[i] for i in _IDLE_FIELDS)
    return CpuSnapshot(processes, (sum(ticks) - idle) / _TICKS_PER_S, idle / _TICKS_PER_S)


def cpu_per_run(
    before: CpuSnapshot, after: CpuSnapshot, *, runs: int, workers: Collection[int], client: int
) -> CpuPerRun:
    """Split the CPU spent between `before` and `after` over `runs` by who spent it.

    A process that ended in between is not in `after`: its CPU falls into `other_ms`.
    """
    in_workers = in_databases = in_client = 0.0
    for pid, (name, seconds) in after.processes.items():
        earlier_name, earlier = before.processes.get(pid, (name, 0.0))
        used = seconds - (earlier if earlier_name == name else 0.0)  # a reused pid is a new process
        if pid in workers:
            in_workers += used
        elif pid == client:
            in_client += used
        elif name in _DATABASES:
            in_databases += used
    busy = after.busy_s - before.busy_s
    per_run = 1000 / max(1, runs)
    return CpuPerRun(
        workers_ms=in_workers * per_run,
        databases_ms=in_databases * per_run,
        client_ms=in_client * per_run,
        other_ms=max(0.0, busy - in_workers - in_databases - in_client) * per_run,
        idle_ms=(after.idle_s - before.idle_s) * per_run,
    )


def _process_cpu(stat: str) -> tuple[str, float]:
    # The command name is in parentheses and may itself hold spaces or parentheses.
    name = stat[stat.index("(") + 1 : stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2 :].split()
    user, system = int(fields[11]), int(fields[12])
    return name, (user + system) / _TICKS_PER_S
