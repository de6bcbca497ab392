"""The shell entry to one evidence tool: `superbiz evidence --world DIR --tool NAME --args JSON`."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from tools.base import Sources
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.redaction import redact
from tools.toolbox import Toolbox


async def run_evidence_command(sources: Sources, limits: ToolLimits, tool: str, args: dict[str, Any]) -> str:
    """Run `tool` once with `args` and return the evidence item as pretty JSON."""
    cache = EvidenceCache(ttl_s=limits.cache_ttl_s, capacity=limits.cache_capacity)
    toolbox = Toolbox(sources, limits, cache)
    run = RunEvidence(budget_bytes=limits.run_evidence_budget_bytes)
    evidence = await toolbox.call(tool, args, run)
    item = asdict(evidence)
    item["source"] = evidence.source.value
    item["status"] = evidence.status.value
    # The boundary masked the evidence already; the printed text is masked once more as a whole.
    return redact(json.dumps(item, indent=2, ensure_ascii=False, default=str))
