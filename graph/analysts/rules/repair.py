"""Rule-based repair: drop what the guard rejected, or ask once for evidence about a named service."""

from __future__ import annotations

import re
from collections.abc import Sequence

from graph.analysts.base import Draft, PlannedCall, Repair, RepairRequest
from graph.analysts.rules.onset import read_window

_LABEL = re.compile(r"^(finding|ruled_out) (\d+) ")
_MISSING_ENTITY = re.compile(r"asserts entity '([^']+)' not found")
_ROOT_CLAIM = re.compile(r"^root cause asserts \w+ '(.+)' not found in ")
_CLOCK_CLAIM = re.compile(r"^t(\d\d:\d\d)$")  # the guard's form of a clock time ("t10:52")


def repair_draft(request: RepairRequest) -> Repair:
    """Gather logs for a service a claim could not be backed for, else re-draft without bad parts."""
    missing = [m.group(1) for v in request.violations if (m := _MISSING_ENTITY.search(v))]
    if missing and request.may_gather:
        window = read_window(request.route.resolved_query, request.now)
        calls = [
            PlannedCall(tool="query_logs", args={"service": name, "window_minutes": window})
            for name in dict.fromkeys(missing)
        ][: min(3, request.remaining_tool_calls)]
        return Repair(calls=calls)
    return Repair(draft=_without_violations(request.draft, request.violations))


def _without_violations(draft: Draft, violations: Sequence[str]) -> Draft:
    bad: dict[str, set[int]] = {"finding": set(), "ruled_out": set()}
    other = False
    for violation in violations:
        if match := _LABEL.match(violation):
            bad[match.group(1)].add(int(match.group(2)))
        elif not violation.startswith(("summary ", "root cause ", "recommendation ")):
            other = True
    findings = [f for n, f in enumerate(draft.findings, 1) if n not in bad["finding"]]
    ruled_out = [r for n, r in enumerate(draft.ruled_out, 1) if n not in bad["ruled_out"]]
    recommendations = [r.model_copy(update={"runbook": None}) for r in draft.recommendations]
    update: dict[str, object] = {
        "findings": findings,
        "ruled_out": ruled_out,
        "recommendations": recommendations,
    }
    root = draft.root_cause
    if any(v.startswith("summary ") for v in violations):
        update["summary"] = _plain_summary(root.service if root else None, findings)
    if root is not None and any(v.startswith("root cause ") for v in violations):
        statement = (
            _supported_statement(root.statement, violations) or f"{root.service} is the most likely origin."
        )
        update["root_cause"] = root.model_copy(update={"statement": statement})
    repaired = draft.model_copy(update=update)
    if other and draft.root_cause is not None and not findings:
        # Nothing left supports the root cause: say so rather than keep an unsupported claim.
        return repaired.model_copy(
            update={
                "root_cause": None,
                "summary": "The evidence does not support a verified root cause.",
            }
        )
    return repaired


def _plain_summary(root: str | None, findings: Sequence[object]) -> str:
    """The summary left when the drafted one made a claim the evidence does not back."""
    if root:
        return f"Root cause: {root}."
    if findings:
        return "See the findings below."
    # Nothing verified is left to point at: say so rather than point at an empty list.
    return "The evidence gathered does not support a verified conclusion."


def _supported_statement(statement: str, violations: Sequence[str]) -> str | None:
    """`statement` without the signals whose claims the guard could not find: the identity and where it
    is (`x (instance=..., mountpoint=...)`) and every other signal stay. None when the identity itself
    carries a rejected claim, or a rejected claim is in no part that can go."""
    rejected = [v for v in violations if v.startswith("root cause ")]
    claims = [_CLOCK_CLAIM.sub(r"\1", m.group(1)) for v in rejected if (m := _ROOT_CLAIM.match(v))]
    if len(claims) < len(rejected):
        return None
    # The analysts write "<identity>: <signal>; <signal>; <link>." (rules/diagnose.py `_statement`).
    first, *others = statement.rstrip(".").split("; ")
    identity, _, signal = first.partition(": ")
    parts = [part for part in [signal, *others] if part]
    bad = [part for part in parts if any(claim in part.lower() for claim in claims)]
    covered = all(any(claim in part.lower() for part in bad) for claim in claims)
    if not covered or any(claim in identity.lower() for claim in claims):
        return None
    kept = [part for part in parts if part not in bad]
    return f"{identity}: {'; '.join(kept)}." if kept else None
