"""composer entry: render the verified draft."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.nodes.composer.lookup import render_lookup
from graph.nodes.composer.render import render_content
from graph.recorder import COMPOSED
from graph.state import DiagnosisState


async def node_composer(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    if (lookup := state.get("lookup")) is not None:
        content = render_lookup(lookup, runtime.context.items())
        return {"content": content, "outcome": "SUCCESS", "termination_reason": COMPOSED}
    draft = state.get("draft")
    assert draft is not None, "composer runs only after both guards passed a draft"
    content = render_content(draft, runtime.context.items())
    return {"content": content, "outcome": "SUCCESS", "termination_reason": COMPOSED}
