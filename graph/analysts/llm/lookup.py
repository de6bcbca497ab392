"""The LLM analyst's part of a lookup: when the question's grammar names no query the rules can run,
the model translates it into the calls of the lookup tools (one structured Plan call).

The rows themselves are never the model's: they are read from the tool results, and EvidenceGuard
holds every row shown to a cited result.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.analysts.base import PlannedCall, PlanRequest
from graph.analysts.llm.payload import compact
from graph.analysts.lookup import LOOKUP_TOOLS, MAX_LOOKUP_CALLS


def lookup_payload(request: PlanRequest) -> str:
    """What the model reads: the question, the systems it names and the SQL datasources."""
    return compact(
        {
            "question": request.route.resolved_query,
            "services_named": list(request.route.services),
            "datasources": list(request.datasources),
            "remaining_tool_calls": request.remaining_tool_calls,
        }
    )


def lookup_calls(calls: Sequence[PlannedCall], remaining: int) -> list[PlannedCall]:
    """The model's calls of lookup tools only, within the bounds."""
    kept = [call for call in calls if call.tool in LOOKUP_TOOLS]
    return kept[: min(MAX_LOOKUP_CALLS, remaining)]
