"""The shell entry to one evidence tool: `superbiz evidence --world DIR --tool NAME --args JSON`."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from tools.evidence_store import RunEvidence
from tools.redaction import redact
from tools.toolbox import Toolbox


async def run_evidence_command(toolbox: Toolbox, tool: str, args: dict[str, Any]) -> str:
    """Run `tool` once with `args` on `toolbox` (built by the composition root) and return the
    evidence item as pretty JSON."""
    run = RunEvidence(budget_bytes=toolbox.limits.run_evidence_budget_bytes)
    evidence = await toolbox.call(tool, args, run)
    item = asdict(evidence)
    item["source"] = evidence.source.value
    item["status"] = evidence.status.value
    # The boundary masked the evidence already; the printed text is masked once more as a whole.
    return redact(json.dumps(item, indent=2, ensure_ascii=False, default=str))
