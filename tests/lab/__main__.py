"""`python -m tests.lab [--only NAME,...] [--out FILE]`: run the live fault lab and print its table."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from tests.lab.report import render
from tests.lab.run import run_lab
from tests.lab.scenarios import SCENARIOS
from tests.lab.stack import missing_requirements


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.lab", description=__doc__)
    parser.add_argument("--only", help="comma-separated scenario names (default: all)")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    options = parser.parse_args()
    missing = missing_requirements()
    if missing:
        print(f"the lab needs: {', '.join(missing)} (.ci/run installs them)", file=sys.stderr)
        return 2
    chosen = SCENARIOS
    if options.only:
        names = set(options.only.split(","))
        chosen = tuple(s for s in SCENARIOS if s.name in names)
    logging.basicConfig(level=logging.WARNING)
    table = render(asyncio.run(run_lab(chosen)))
    print(table)
    if options.out:
        options.out.write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
