"""`python -m bench [--quick] [--only NAME ...] [--out FILE]`: run, print the table, write JSON.

Each item runs in a Python process of its own, as a deployed service starts fresh: in one shared
process, what an item left behind (its heap, warm caches, idle executor threads) skewed the next
one (parallel evidence read 1.20x after the orchestration item, 1.12x on its own).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import pickle
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path

import uvloop

from bench import (
    cancellation,
    database_cost,
    disconnect_load,
    memory,
    model_economy,
    orchestration,
    parallel_evidence,
    prometheus_scale,
    scale_out,
)
from bench.figures import ItemResult
from bench.plan import FULL, QUICK, BenchContext
from bench.report import markdown, write_json
from bench.serving import BENCH_CHAT, BENCH_DATABASE, Endpoints

Item = Callable[[BenchContext], Awaitable[ItemResult]]
ITEMS: dict[str, Item] = {
    "orchestration": orchestration.run,
    "parallel_evidence": parallel_evidence.run,
    "cancellation": cancellation.run,
    "memory": memory.run,
    "database_cost": database_cost.run,
    "scale_out": scale_out.run,
    "model_economy": model_economy.run,
    "disconnect_load": disconnect_load.run,
    "prometheus_scale": prometheus_scale.run,
}
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run under 2 minutes")
    parser.add_argument(
        "--only", action="append", choices=sorted(ITEMS), help="run only this item (repeatable)"
    )
    parser.add_argument("--out", type=Path, default=Path("bench-results/latest.json"))
    parser.add_argument("--log", type=Path, default=Path("bench-results/bench.log"))
    # Internal: run one item in this process and pickle its result to this file (see run_items).
    parser.add_argument("--result-file", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args()


def run_items(names: list[str], *, quick: bool, log: Path) -> list[ItemResult]:
    """Run the named items one after the other, each in a fresh process; a failing item is
    reported, not fatal."""
    results: list[ItemResult] = []
    for name in names:
        started = time.monotonic()
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        result = _in_own_process(name, quick=quick, log=log)
        result.seconds = round(time.monotonic() - started, 1)
        print(f"bench: {name} done in {result.seconds} s", file=sys.stderr, flush=True)
        results.append(result)
    return results


def _in_own_process(name: str, *, quick: bool, log: Path) -> ItemResult:
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-item-") as folder:
        result_file = Path(folder) / "result.pickle"
        item_log = log.with_name(f"{log.stem}-{name}{log.suffix}")
        command = [sys.executable, "-m", "bench", "--only", name, "--result-file", str(result_file)]
        command += ["--log", str(item_log), *(["--quick"] if quick else [])]
        finished = subprocess.run(command, check=False)
        if finished.returncode != 0 or not result_file.exists():
            return ItemResult(name, name, error=f"item process exited with {finished.returncode}")
        result: ItemResult = pickle.loads(result_file.read_bytes())
        return result


async def run_one(name: str, ctx: BenchContext) -> ItemResult:
    """One item in this process; an exception becomes the item's error."""
    try:
        return await ITEMS[name](ctx)
    except Exception as error:  # the outer edge of one item: the others still run
        logging.getLogger("superbiz.bench").exception("item %s failed", name)
        traceback.print_exc()
        return ItemResult(name, name, error=f"{type(error).__name__}: {error}"[:200])


def main() -> int:
    args = _arguments()
    args.log.parent.mkdir(parents=True, exist_ok=True)
    # The service logs (warnings of degraded steps, cancelled runs) go to a file, not over the table.
    logging.basicConfig(filename=args.log, filemode="w", level=logging.WARNING, force=True)
    endpoints = Endpoints(
        pg_url=os.environ.get("SUPERBIZ_TEST_PG_URL", DEFAULT_PG),
        redis_url=os.environ.get("SUPERBIZ_TEST_REDIS_URL", DEFAULT_REDIS),
    )
    ctx = BenchContext(QUICK if args.quick else FULL, endpoints, args.quick)
    names = args.only or list(ITEMS)
    if args.result_file is not None:
        (name,) = names
        # uvloop: the in-process servers and their limits run on the loop `superbiz serve` runs on.
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            args.result_file.write_bytes(pickle.dumps(runner.run(run_one(name, ctx))))
        return 0
    started = time.monotonic()
    results = run_items(names, quick=args.quick, log=args.log)
    command = "make bench" if not args.quick else "python -m bench --quick"
    print(markdown(results, command=command))
    settings = {"chat": BENCH_CHAT, "database": BENCH_DATABASE, "sizes": ctx.sizes.__repr__()}
    write_json(args.out, results, quick=args.quick, settings=settings)
    print(f"\nbench: {time.monotonic() - started:.0f} s in all; results in {args.out}", file=sys.stderr)
    return 1 if any(r.error for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
