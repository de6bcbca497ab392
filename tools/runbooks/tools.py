"""The runbook tools: the index of runbook sections and a search for relevant passages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from tools.base import EvidenceSource, KnowledgeSource
from tools.toolbox.args import ToolArgs, mappings
from tools.toolbox.spec import Answer, Found, ToolContext, ToolSpec, require


class ListRunbooksArgs(ToolArgs):
    pass


class SearchRunbooksArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=500)
    limit: Annotated[int, Field(ge=1, le=20)] = 5


async def list_runbooks(ctx: ToolContext, args: ListRunbooksArgs) -> Answer:
    source: KnowledgeSource = require(ctx.sources.knowledge, "knowledge")
    entries = await source.index(limit=ctx.limits.max_discovery_items)
    files = sorted({file for file, _ in entries})
    return Answer(
        title="Runbook index",
        summary=f"{len(entries)} sections in {len(files)} runbooks: {', '.join(files)}",
        data={"runbooks": [{"file": file, "heading": heading} for file, heading in entries]},
        empty=not entries,
        truncated=len(entries) >= ctx.limits.max_discovery_items,
    )


async def search_runbooks(ctx: ToolContext, args: SearchRunbooksArgs) -> Answer:
    source: KnowledgeSource = require(ctx.sources.knowledge, "knowledge")
    passages = await source.search(query=args.query, limit=args.limit)
    found = "; ".join(f"{p.file} § {p.heading}" for p in passages)
    return Answer(
        title=f"Runbook passages for {args.query!r}",
        summary=f"{len(passages)} passages" + (f": {found}" if found else ""),
        data={
            "passages": [
                {"file": p.file, "heading": p.heading, "text": p.text, "score": round(p.score, 4)}
                for p in passages
            ]
        },
        query={"query": args.query, "limit": args.limit},
        empty=not passages,
    )


def found_runbooks(data: Mapping[str, Any]) -> Found:
    """The runbook files of an index, one per section listed."""
    return Found(runbooks=tuple(str(entry.get("file", "")) for entry in mappings(data.get("runbooks"))))


TOOLS = (
    ToolSpec(
        "list_runbooks",
        EvidenceSource.KNOWLEDGE,
        ListRunbooksArgs,
        "List the runbooks and their sections.",
        list_runbooks,
        lane="knowledge",
        role="discovery",
        finds=found_runbooks,
    ),
    ToolSpec(
        "search_runbooks",
        EvidenceSource.KNOWLEDGE,
        SearchRunbooksArgs,
        "Runbook passages relevant to a question.",
        search_runbooks,
        lane="knowledge",
    ),
)
