"""lookup entry: turn the tool results of the lookup's query into the typed answer."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.nodes.lookup.tables import lookup_answer
from graph.state import DiagnosisState


async def node_lookup(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    items = runtime.context.items(state.get("evidence_ids", []))
    # Names the question gives beside an expression narrow its series; names inside it do not.
    expressions = " ".join(str(item.query.get("promql", "")) for item in items)
    about = [name for name in state["route"].services if name not in expressions]
    return {"lookup": lookup_answer(items, about, state["route"].resolved_query)}
