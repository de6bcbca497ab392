"""The Markdown table printed at the end and the JSON file kept for comparison."""

from __future__ import annotations

import json
import math
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.figures import ItemResult


def markdown(results: Sequence[ItemResult], *, command: str) -> str:
    """One table: item, figure, value, target, verdict; paste-ready for the README."""
    lines = [
        f"Measured with `{command}` on {platform.node()} ({_cpus()} CPUs), {time.strftime('%Y-%m-%d')}.",
        "",
        "| item | figure | value | target | |",
        "|---|---|---:|---|---|",
    ]
    for result in results:
        if result.error:
            lines.append(f"| {result.item} | failed: {result.error} | | | ERROR |")
        for figure in result.figures:
            target = str(figure.target) if figure.target else ""
            value = f"{_value(figure.value)} {figure.unit}"
            lines.append(f"| {result.item} | {figure.name} | {value} | {target} | {figure.verdict} |")
    return "\n".join(lines)


def write_json(path: Path, results: Sequence[ItemResult], *, quick: bool, settings: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "quick": quick,
        "machine": {"node": platform.node(), "cpus": _cpus(), "python": platform.python_version()},
        "settings": settings,
        "items": [r.as_json() for r in results],
    }
    path.write_text(json.dumps(document, indent=2, default=str) + "\n")


def _value(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


def _cpus() -> int:
    import os

    return os.cpu_count() or 0
