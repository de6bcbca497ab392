"""EvidenceGuard's part of a lookup: every row shown came from a cited tool result of this run.

SemanticGuard's part is `graph.nodes.semantic_guard.lookup`. Pure, on the answer and the run's evidence
items. Violations are internal strings, never streamed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graph.analysts.lookup import LookupAnswer
from graph.nodes.lookup.tables import READERS, rows_of
from tools.base import Evidence


def check_rows(answer: LookupAnswer, items: Sequence[Evidence]) -> list[str]:
    """Violations: a table citing no result, an unknown or failed one, one of another kind, or a row
    that none of its cited results holds."""
    by_id: Mapping[str, Evidence] = {item.id: item for item in items}
    violations: list[str] = []
    for number, table in enumerate(answer.tables, 1):
        label = f"table {number}"
        if not table.evidence_ids:
            violations.append(f"{label} cites no evidence")
            continue
        held: set[tuple[str, ...]] = set()
        for evidence_id in table.evidence_ids:
            item = by_id.get(evidence_id)
            if item is None:
                violations.append(f"{label} cites unknown evidence id '{evidence_id}'")
            elif not item.status.succeeded:
                violations.append(f"{label} cites evidence '{evidence_id}' that did not succeed")
            elif READERS.get(item.tool, ("", None))[0] != table.kind:
                violations.append(f"{label} ({table.kind}) cites '{evidence_id}' of tool {item.tool}")
            else:
                held |= {tuple(row) for row in rows_of(item)[1]}
        unheld = [n for n, row in enumerate(table.rows, 1) if tuple(row) not in held]
        violations += [f"{label} row {n} is in no cited tool result" for n in unheld[:20]]
        if table.total < len(table.rows):
            violations.append(f"{label} counts {table.total} rows but shows {len(table.rows)}")
    return violations
