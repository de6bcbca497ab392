"""How big each benchmark is (full or `--quick`) and what every item receives."""

from __future__ import annotations

from dataclasses import dataclass

from bench.serving import Endpoints


@dataclass(frozen=True, slots=True)
class Sizes:
    """Run counts; the full plan fits ~10 minutes on the 2-core bench machine, quick under 2."""

    load: tuple[tuple[int, int], ...]  # (concurrency, runs)
    repeats: int  # each load size is measured this many times; medians are reported
    domain_runs: int  # in-process graph runs per concurrency (CPU-bound: kept small)
    evidence_runs: int
    disconnects: int
    open_streams: int
    growth_runs: int
    growth_budget_s: float  # the growth loop stops here even if `growth_runs` is not reached
    db_cost_runs: int
    scale_out_runs: int
    scale_out_concurrency: int
    economy_runs: int
    prometheus_series: tuple[int, int, int]  # backfilled TSDB sizes, smallest first
    prometheus_repeats: int


FULL = Sizes(
    load=((1, 8), (16, 32), (64, 64)),
    repeats=3,
    domain_runs=16,
    evidence_runs=5,
    disconnects=200,
    open_streams=200,
    growth_runs=2_000,
    growth_budget_s=300.0,  # a cap for a machine much slower than the bench VM (README.md)
    db_cost_runs=5,
    scale_out_runs=320,
    scale_out_concurrency=16,
    economy_runs=3,
    prometheus_series=(10_000, 100_000, 500_000),
    # Each sample is tens of milliseconds on a shared VM: three repeats' median swung 0.9-1.6x between
    # runs of the same code, eleven 0.75-1.24x (bench/README.md).
    prometheus_repeats=11,
)

QUICK = Sizes(
    load=((1, 1), (16, 16)),
    repeats=1,
    domain_runs=2,
    evidence_runs=2,
    disconnects=20,
    open_streams=40,
    growth_runs=60,
    growth_budget_s=20.0,
    db_cost_runs=2,
    scale_out_runs=16,
    scale_out_concurrency=8,
    economy_runs=1,
    prometheus_series=(1_000, 5_000, 20_000),
    prometheus_repeats=1,
)


@dataclass(frozen=True, slots=True)
class BenchContext:
    sizes: Sizes
    endpoints: Endpoints
    quick: bool
