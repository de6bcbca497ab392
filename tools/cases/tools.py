"""The case library's tool: past diagnosed cases similar to a question, per principal."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.base import CaseSource, EvidenceSource
from tools.toolbox.args import ToolArgs
from tools.toolbox.spec import Answer, ToolContext, ToolSpec, require


class SearchCasesArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=500)
    limit: Annotated[int, Field(ge=1, le=20)] = 5


async def search_cases(ctx: ToolContext, args: SearchCasesArgs) -> Answer:
    source: CaseSource = require(ctx.sources.cases, "cases")
    cases = await source.similar_cases(query=args.query, limit=args.limit, principal=ctx.principal)
    found = "; ".join(f"{c.case_id}: {c.root_cause_service or '?'} / {c.category or '?'}" for c in cases)
    return Answer(
        title="Similar past cases (historical clues, not evidence of the current incident)",
        summary=(
            f"{len(cases)} similar past cases; historical clues only, confirm with live evidence"
            + (f": {found}" if found else "")
        ),
        data={
            "cases": [
                {
                    "case_id": c.case_id,
                    "query": c.query,
                    "answer": c.answer,
                    "root_cause_service": c.root_cause_service,
                    "category": c.category,
                    "diagnosis_id": c.diagnosis_id,
                    "score": round(c.score, 4),
                }
                for c in cases
            ]
        },
        query={"query": args.query, "limit": args.limit},
        empty=not cases,
    )


TOOLS = (
    ToolSpec(
        "search_cases",
        EvidenceSource.CASES,
        SearchCasesArgs,
        "Past diagnosed cases similar to a question (clues only).",
        search_cases,
        lane="knowledge",
    ),
)
