"""`superbiz eval run` and `superbiz eval diff`; api/cli.py adds them with `add_eval_commands`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

DEFAULT_WORLDS_DIR = Path("tests/data/worlds")


def add_eval_commands(subparsers: Any) -> None:
    """Add `eval run [--worlds DIR ...] [--out FILE] [--analyst rules|llm]` and `eval diff BASE NEW`."""
    evaluation = subparsers.add_parser("eval", help="evaluate diagnoses on scenario worlds")
    commands = evaluation.add_subparsers(dest="eval_command", required=True)
    run = commands.add_parser("run", help="run every scenario of every world and write one JSON result")
    run.add_argument(
        "--worlds",
        action="append",
        type=Path,
        metavar="DIR",
        help="a world directory or a folder of worlds (repeatable; default: the demo world and "
        f"{DEFAULT_WORLDS_DIR}/*)",
    )
    run.add_argument("--out", type=Path, help="result file (default: standard output)")
    run.add_argument(
        "--analyst",
        choices=("rules", "llm"),
        default="rules",
        help="rules (default) or llm (needs SUPERBIZ_MODEL__BASE_URL and SUPERBIZ_MODEL__NAME)",
    )
    run.set_defaults(handler=_run)
    diff = commands.add_parser("diff", help="compare two results; exit 1 on any regression")
    diff.add_argument("base", type=Path)
    diff.add_argument("new", type=Path)
    diff.set_defaults(handler=_diff)


def _progress(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _run(args: argparse.Namespace) -> int:
    from api.cli import load_settings
    from api.evaluation.harness import AnalystUnconfigured, build_setup, run_evaluation
    from api.evaluation.worlds import discover_worlds
    from tools.demo_world import DEMO_WORLD_DIR

    folders = args.worlds or [DEMO_WORLD_DIR, DEFAULT_WORLDS_DIR]
    world_dirs = discover_worlds(folders)
    if not world_dirs:
        sys.stderr.write("superbiz: no worlds found in " + ", ".join(map(str, folders)) + "\n")
        return 2
    try:
        setup = build_setup(load_settings(), args.analyst)
    except AnalystUnconfigured as error:
        sys.stderr.write(f"superbiz: {error}\n")
        return 2
    result = asyncio.run(run_evaluation(world_dirs, setup, _progress))
    text = json.dumps(result, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    _progress(_summary(result["totals"]))
    return 0


def _summary(totals: dict[str, Any]) -> str:
    return (
        f"root-cause hit rate {totals['root_cause_hit_rate']} "
        f"({totals['root_cause_service_hits']}/{totals['fault_scenarios']} fault scenarios), "
        f"category {totals['category_hits']}/{totals['category_scenarios']}, "
        f"healthy correct {totals['healthy_correct']}/{totals['healthy_scenarios']}, "
        f"verdict {totals.get('verdict_hits', 0)}/{totals.get('verdict_scenarios', 0)}, "
        f"route {totals.get('route_hits', 0)}/{totals.get('route_scenarios', 0)}, "
        f"data {totals.get('data_hits', 0)}/{totals.get('data_scenarios', 0)}, "
        f"unsupported claims {totals['unsupported_claims_released']}, "
        f"fallbacks {totals['fallbacks']}, errors {totals['errors']}"
    )


def _diff(args: argparse.Namespace) -> int:
    from api.evaluation.diff import diff_results, render_diff

    try:
        base = json.loads(args.base.read_text())
        new = json.loads(args.new.read_text())
    except (OSError, json.JSONDecodeError) as error:
        sys.stderr.write(f"superbiz: cannot read a result file ({type(error).__name__})\n")
        return 2
    diff = diff_results(base, new)
    print(render_diff(diff, base, new))
    return 1 if diff.regressed else 0
