"""The same tools as LangChain structured tools (for the LLM analyst), delegating to `call`."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langchain_core.tools import StructuredTool

from tools.evidence_store import RunEvidence
from tools.toolbox.spec import ToolSpec

if TYPE_CHECKING:
    from tools.toolbox.boundary import Toolbox


def langchain_tools(toolbox: Toolbox, run: RunEvidence) -> list[StructuredTool]:
    """One StructuredTool per tool; each returns the evidence item as JSON text for the model."""
    return [_structured(toolbox, run, spec) for spec in toolbox.specs()]


def _structured(toolbox: Toolbox, run: RunEvidence, spec: ToolSpec) -> StructuredTool:
    async def invoke(**kwargs: Any) -> str:
        evidence = await toolbox.call(spec.name, kwargs, run)
        return json.dumps(
            {
                "id": evidence.id,
                "status": evidence.status.value,
                "title": evidence.title,
                "summary": evidence.summary,
                "truncated": evidence.truncated,
                "data": evidence.data,
            },
            ensure_ascii=False,
        )

    coroutine: Callable[..., Awaitable[str]] = invoke
    return StructuredTool.from_function(
        coroutine=coroutine,
        name=spec.name,
        description=spec.description,
        args_schema=spec.args,
    )
