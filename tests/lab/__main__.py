"""`python -m tests.lab [--only NAME,...] [--out FILE]`: run the live fault lab and print its table;
`--stack-only` starts the stack and prints the settings to point `superbiz serve` at it, until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import threading
from pathlib import Path

from tests.lab.report import render
from tests.lab.run import run_lab
from tests.lab.scenarios import SCENARIOS
from tests.lab.stack import LabStack, missing_requirements


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.lab", description=__doc__)
    parser.add_argument("--only", help="comma-separated scenario names (default: all)")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    parser.add_argument("--stack-only", action="store_true", help="start the stack, print its settings, wait")
    options = parser.parse_args()
    missing = missing_requirements()
    if missing:
        print(f"the lab needs: {', '.join(missing)} (.ci/run installs them)", file=sys.stderr)
        return 2
    if options.stack_only:
        return _hold_stack()
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


def _hold_stack() -> int:
    stack = LabStack()
    try:
        stack.start()
        print(f"SUPERBIZ_PROMETHEUS_URL={stack.prometheus_url}")
        print(f"SUPERBIZ_ALERTMANAGER_URL={stack.alertmanager_url}")
        print(f"SUPERBIZ_BACKENDS__SQL_DATASOURCES='{json.dumps(stack.sql_datasources())}'")
        print(f"# PostgreSQL (superuser): {stack.pg_dsn()}; Ctrl-C stops everything", flush=True)
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        stack.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
