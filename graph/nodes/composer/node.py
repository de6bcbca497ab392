"""composer entry: render the verified draft."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.nodes.composer.charts import finding_charts
from graph.nodes.composer.lookup import render_lookup
from graph.nodes.composer.render import REPORT, render_content
from graph.recorder import COMPOSED
from graph.state import DiagnosisState
from tools.identity import DEFAULT_IDENTITY


async def node_composer(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    if (lookup := state.get("lookup")) is not None:
        content = render_lookup(lookup, runtime.context.items())
        return {"content": content, "outcome": "SUCCESS", "termination_reason": COMPOSED}
    draft = state.get("draft")
    assert draft is not None, "composer runs only after both guards passed a draft"
    items = runtime.context.items()
    content = render_content(draft, items)
    if content["content_type"] == REPORT:  # the metric evidence its findings cite, drawn by the pages
        digest, _ = await runtime.context.digest_of(items)
        # The configured identity labels name each series (the real Toolbox has them; a test's stub may not).
        limits = getattr(runtime.context.toolbox, "limits", None)
        identity = getattr(limits, "identity", DEFAULT_IDENTITY)
        content["payload"]["charts"] = finding_charts(draft, items, digest, identity)
    return {"content": content, "outcome": "SUCCESS", "termination_reason": COMPOSED}
