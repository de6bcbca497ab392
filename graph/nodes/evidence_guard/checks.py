"""EvidenceGuard: deterministic checks of a draft against this run's evidence, and confidence caps.

Pure: works on the draft and the prepared evidence corpus. Violations are safe internal strings that
the repair step reads; they never reach a client.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graph.analysts.base import Draft
from graph.nodes.evidence_guard.claims import Claim, extract_claims, number_present
from graph.nodes.evidence_guard.corpus import EvidenceText
from tools.toolbox.catalog import KEY_SOURCES as CATALOG_KEY_SOURCES

# Sources whose failure caps confidence, as each tool declares it (alerts, metrics, logs).
KEY_SOURCES = tuple(source.value for source in CATALOG_KEY_SOURCES)
CAP_KEY_SOURCE_FAILED = 0.6
CAP_THIN_EVIDENCE = 0.5
CAP_CASES_ONLY = 0.3
# Headings the analysts write into a summary before what they assert.
_REPORT_HEADINGS = re.compile(
    r"\b(?:root cause|also affected|ruled out|also happening|also firing)\s*:", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class GuardResult:
    """The verdict: violations (empty = pass), the confidence cap applied, and why."""

    violations: list[str]
    draft: Draft  # the draft with its confidence capped
    confidence_cap: float | None = None
    cap_reasons: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.violations

    def report(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "violations": self.violations[:20],
            "confidence_cap": self.confidence_cap,
            "cap_reasons": self.cap_reasons,
        }


def check_draft(
    draft: Draft,
    corpus: Mapping[str, EvidenceText],
    *,
    entities: set[str],
    runbook_text: str,
    past_cause: bool = False,
) -> GuardResult:
    """Check citations and claims of every finding, ruled-out item, the root cause and the summary."""
    violations: list[str] = []
    cited_all: list[str] = []
    statements = [(f"finding {n}", f.statement, f.evidence_ids) for n, f in enumerate(draft.findings, 1)]
    statements += [
        (f"ruled_out {n}", f"{item.service}: {item.reason}", item.evidence_ids)
        for n, item in enumerate(draft.ruled_out, 1)
    ]
    for label, statement, ids in statements:
        violations += _citation_violations(label, ids, corpus)
        cited = [corpus[i] for i in ids if i in corpus and corpus[i].succeeded]
        violations += _claim_violations(label, statement, cited, entities)
        cited_all += [item.id for item in cited]
    union = [corpus[i] for i in dict.fromkeys(cited_all)]
    # The report's own headings ("Root cause:") are no claims, even where a name in the evidence
    # (a database user called root) spells the same word.
    summary = _REPORT_HEADINGS.sub(" ", draft.summary)
    violations += _claim_violations("summary", summary, union, entities)
    if draft.root_cause is not None:
        root = draft.root_cause
        if draft.healthy and not past_cause:
            # Healthy means nothing is wrong now: a cause is named only when the question asked what
            # caused trouble that has ended.
            violations.append("draft says healthy but names a root cause")
        if not union:
            violations.append("root cause is not supported by any cited evidence")
        text = f"{root.service}: {root.statement}"
        violations += _claim_violations("root cause", text, union, entities)
    for n, rec in enumerate(draft.recommendations, 1):
        if rec.runbook and rec.runbook.lower() not in runbook_text:
            violations.append(f"recommendation {n} names runbook '{rec.runbook}' not in evidence")
    cap, reasons = _confidence_cap(draft, corpus, union)
    return GuardResult(violations, _capped(draft, cap), cap, reasons)


def cited_ids(draft: Draft) -> set[str]:
    """Every evidence id the draft cites anywhere."""
    ids = {i for finding in draft.findings for i in finding.evidence_ids}
    return ids | {i for item in draft.ruled_out for i in item.evidence_ids}


def _citation_violations(label: str, ids: Sequence[str], corpus: Mapping[str, EvidenceText]) -> list[str]:
    if not ids:
        return [f"{label} cites no evidence"]
    found: list[str] = []
    for evidence_id in ids:
        item = corpus.get(evidence_id)
        if item is None:
            found.append(f"{label} cites unknown evidence id '{evidence_id}'")
        elif not item.succeeded:
            found.append(f"{label} cites evidence '{evidence_id}' that did not succeed")
    return found


def _claim_violations(
    label: str, statement: str, cited: Sequence[EvidenceText], entities: set[str]
) -> list[str]:
    found: list[str] = []
    for claim in extract_claims(statement, entities):
        if not _present(claim, cited):
            where = ", ".join(item.id for item in cited) or "no evidence"
            found.append(f"{label} asserts {claim.kind} '{claim.text}' not found in {where}")
    return found


def _present(claim: Claim, cited: Sequence[EvidenceText]) -> bool:
    if claim.kind == "number":
        return any(number_present(claim, item.numbers) for item in cited)
    forms = {claim.text}
    if claim.kind == "quote" and '"' in claim.text:
        # The evidence is read as JSON text, where a line's own double quotes are escaped.
        forms.add(json.dumps(claim.text, ensure_ascii=False)[1:-1])
    if claim.kind == "time" and claim.text[:1].isdigit():
        # A database writes a timestamp with a space (`2027-08-03 10:24:30+00`), ISO with a `T`.
        forms.add(claim.text.replace("t", " ", 1))
    return any(form in item.text for item in cited for form in forms)


def _confidence_cap(
    draft: Draft, corpus: Mapping[str, EvidenceText], union: Sequence[EvidenceText]
) -> tuple[float | None, list[str]]:
    if draft.root_cause is None:
        return None, []
    caps: list[tuple[float, str]] = []
    failed_sources = {
        source
        for source in KEY_SOURCES
        if any(item.source == source and not item.succeeded for item in corpus.values())
    }
    if failed_sources:
        caps.append((CAP_KEY_SOURCE_FAILED, "key source failed: " + ", ".join(sorted(failed_sources))))
    if union and all(item.source == "cases" for item in union):
        caps.append((CAP_CASES_ONLY, "only past cases support the claim"))
    elif len({item.id for item in union if item.source != "cases"}) < 2:
        caps.append((CAP_THIN_EVIDENCE, "thin evidence: fewer than two supporting items"))
    if not caps:
        return None, []
    return min(cap for cap, _ in caps), [reason for _, reason in caps]


def _capped(draft: Draft, cap: float | None) -> Draft:
    if cap is None or draft.root_cause is None or draft.root_cause.confidence <= cap:
        return draft
    root = draft.root_cause.model_copy(update={"confidence": cap})
    return draft.model_copy(update={"root_cause": root})
