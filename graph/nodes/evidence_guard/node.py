"""evidence_guard entry: check the draft against this run's evidence; violations go to repair."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.analysts.past import asks_past_cause
from graph.context import RunContext
from graph.nodes.evidence_guard.checks import check_draft, cited_ids
from graph.nodes.evidence_guard.corpus import build_corpus, run_entities, runbook_names
from graph.nodes.lookup.guard import check_rows
from graph.state import DiagnosisState


async def node_evidence_guard(state: DiagnosisState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    if (lookup := state.get("lookup")) is not None:
        violations = check_rows(lookup, ctx.items())
        return {
            "violations": violations,
            "guard_report": {"passed": not violations, "violations": violations[:20]},
        }
    draft = state.get("draft")
    if draft is None:
        return {"violations": ["no draft"], "guard_report": {"passed": False}}
    # Citations may name any item of this run, so ids are checked against all of it.
    items = ctx.items()
    digest, _ = await ctx.digest_of(items)
    cited = cited_ids(draft)
    result = check_draft(
        draft,
        build_corpus(items, digest, only=cited),
        entities=run_entities(items),
        runbook_text=runbook_names(items),
        past_cause=asks_past_cause(state["route"].resolved_query),
    )
    report = result.report()
    if earlier := state.get("violations"):
        # What an earlier pass rejected and repair changed: the stored run says why a statement is thin.
        report["repaired"] = earlier[:20]
    return {"draft": result.draft, "violations": result.violations, "guard_report": report}
