"""`python -m tests.lab [--only NAME,...] [--out FILE]`: run the live fault lab and print its table;
`--stack-only` starts the stack and prints the settings to point `superbiz serve` at it, until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from tests.lab.monitoring import INSTANCES
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
    # SIGTERM, and SIGINT too: a shell starts a background job with SIGINT ignored, so Python would
    # never raise KeyboardInterrupt and a plain kill would leave the databases and the tmpfs behind.
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    stack = LabStack()
    try:
        stack.start()
        # The settings first, as `export` lines a shell can take as they are; then what is running.
        print(f"export SUPERBIZ_PROMETHEUS_URL={stack.prometheus_url}")
        print(f"export SUPERBIZ_ALERTMANAGER_URL={stack.alertmanager_url}")
        print(f"export SUPERBIZ_BACKENDS__SQL_DATASOURCES='{json.dumps(stack.sql_datasources())}'")
        # The port and token the lab's Alertmanager receiver posts to: each firing group an investigation.
        print(f"export SUPERBIZ_PORT={stack.ports['service']}")
        print(f"export SUPERBIZ_ALERT_WEBHOOK__TOKEN={stack.webhook_token}")
        for line in _stack_lines(stack):
            print(f"# {line}")
        print(
            f"# Ctrl-C or kill {os.getpid()} (SIGINT/SIGTERM) stops everything and removes its files",
            flush=True,
        )
        while not stop.wait(1.0):
            pass
    finally:
        stack.close()
    return 0


def _stack_lines(stack: LabStack) -> list[str]:
    """Where each piece listens, under the instance names Prometheus gives them, and the spool a
    HostFilesystemAlmostFull fault fills: what a walkthrough needs to look at or break by hand."""
    ports = stack.ports
    exporters = {
        "node": ports["node"],
        "postgres": ports["pg_exporter"],
        "redis": ports["redis_exporter"],
        "mysqld": ports["mysqld_exporter"],
        "storefront": ports["storefront"],
    }
    lines = [
        f"job {job} instance {INSTANCES[job]}: http://127.0.0.1:{port}/metrics"
        for job, port in exporters.items()
    ]
    return [
        *lines,
        f"PostgreSQL superuser: {stack.pg_dsn()}",
        f"MariaDB root: mysql -uroot -h127.0.0.1 -P{ports['mysql']}",
        f"Redis: redis-cli -p {ports['redis']}",
        f"tmpfs spool (64 MB, HostFilesystemAlmostFull below 10 % free): {stack.spool}",
    ]


if __name__ == "__main__":
    sys.exit(main())
