"""Turns an analyst's plan into calls the run can make: known tools, no repeats, within the tool budget."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from graph.analysts.base import PlannedCall

MAX_CALLS_PER_ROUND = 30


def call_key(tool: str, args: object) -> str:
    return f"{tool}:{json.dumps(args, sort_keys=True, default=str)}"


def shape_plan(
    calls: Sequence[PlannedCall],
    *,
    tool_names: Iterable[str],
    already_made: Iterable[str],
) -> list[PlannedCall]:
    """Known tools only, each distinct call once per run, at most MAX_CALLS_PER_ROUND."""
    known = set(tool_names)
    seen = set(already_made)
    shaped: list[PlannedCall] = []
    for call in calls:
        key = call_key(call.tool, call.args)
        if call.tool not in known or key in seen:
            continue
        seen.add(key)
        shaped.append(call)
    return shaped[:MAX_CALLS_PER_ROUND]
