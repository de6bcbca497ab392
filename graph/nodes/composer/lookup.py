"""The released payload of a lookup: `{content_type: "lookup_result", payload}`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.analysts.lookup import LOOKUP_CONTENT_TYPE, LookupAnswer
from graph.nodes.composer.render import evidence_list
from tools.base import Evidence


def render_lookup(answer: LookupAnswer, items: Sequence[Evidence]) -> dict[str, Any]:
    """The summary with counts, the tables (rows, the query that produced them) and the evidence list."""
    return {
        "content_type": LOOKUP_CONTENT_TYPE,
        "payload": {
            "summary": answer.summary,
            "nothing_matched": answer.nothing_matched,
            "tables": [table.model_dump() for table in answer.tables],
            "evidence": evidence_list(items),
            "degraded": False,
        },
    }
