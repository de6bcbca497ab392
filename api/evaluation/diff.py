"""Compares two evaluation results scenario by scenario: what improved, what regressed.

A regression is a hit that became a miss, a new unsupported claim, a healthy verdict gone wrong,
or a scenario of the base missing from the new result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Boolean figures where True is good; a True → False change is a regression.
_CHECKS = (
    "root_cause_service_hit",
    "category_hit",
    "healthy_correct",
    "keywords_all_present",
    "keywords_none_absent",
    "evidence_sources_hit",
    "confidence_within_cap",
    "unavailable_sources_reported",
    "verdict_hit",
    "route_hit",
    "data_contains_present",
    "data_none_absent",
)


@dataclass(slots=True)
class ScenarioChange:
    """The changes of one scenario between base and new."""

    key: str
    improved: list[str] = field(default_factory=list)
    regressed: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ResultDiff:
    """Per-scenario changes plus the scenarios only one side has."""

    changes: list[ScenarioChange] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)

    @property
    def regressed(self) -> bool:
        return bool(self.missing) or any(change.regressed for change in self.changes)


def _by_key(result: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    entries = result.get("scenarios") or []
    return {str(e.get("key") or f"{e.get('world')}/{e.get('id')}"): e for e in entries}


def compare_scenario(key: str, base: Mapping[str, Any], new: Mapping[str, Any]) -> ScenarioChange:
    """What changed for one scenario; unset figures (None) on either side are not compared."""
    change = ScenarioChange(key)
    for check in _CHECKS:
        before, after = base.get(check), new.get(check)
        if before is None or after is None or before == after:
            continue
        (change.improved if after else change.regressed).append(f"{check}: {_mark(before)} -> {_mark(after)}")
    before_claims = int(base.get("unsupported_claims_released") or 0)
    after_claims = int(new.get("unsupported_claims_released") or 0)
    if after_claims != before_claims:
        target = change.regressed if after_claims > before_claims else change.improved
        target.append(f"unsupported_claims_released: {before_claims} -> {after_claims}")
    if base.get("outcome") != new.get("outcome"):
        worse = new.get("outcome") != "SUCCESS"
        (change.regressed if worse else change.improved).append(
            f"outcome: {base.get('outcome')} -> {new.get('outcome')}"
        )
    return change


def diff_results(base: Mapping[str, Any], new: Mapping[str, Any]) -> ResultDiff:
    """Compare every scenario of `base` with the same scenario of `new`."""
    before, after = _by_key(base), _by_key(new)
    diff = ResultDiff(missing=sorted(set(before) - set(after)), added=sorted(set(after) - set(before)))
    for key in sorted(set(before) & set(after)):
        change = compare_scenario(key, before[key], after[key])
        if change.improved or change.regressed:
            diff.changes.append(change)
    return diff


def _mark(value: Any) -> str:
    if isinstance(value, bool):
        return "hit" if value else "miss"
    return str(value)


_TOTALS = (
    "root_cause_hit_rate",
    "category_hit_rate",
    "healthy_correct",
    "unsupported_claims_released",
    "fallbacks",
    "errors",
    "tool_calls",
    "model_calls",
)


def render_diff(diff: ResultDiff, base: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """A readable report: regressions first, then improvements, then the totals side by side."""
    lines: list[str] = []
    for key in diff.missing:
        lines.append(f"REGRESSED {key}: scenario missing from the new result")
    for change in diff.changes:
        for item in change.regressed:
            lines.append(f"REGRESSED {change.key}: {item}")
    for change in diff.changes:
        for item in change.improved:
            lines.append(f"improved  {change.key}: {item}")
    for key in diff.added:
        lines.append(f"added     {key}: new scenario")
    base_totals, new_totals = base.get("totals") or {}, new.get("totals") or {}
    lines.append("totals:")
    for name in _TOTALS:
        lines.append(f"  {name}: {base_totals.get(name)} -> {new_totals.get(name)}")
    regressions = len(diff.missing) + sum(len(c.regressed) for c in diff.changes)
    improvements = sum(len(c.improved) for c in diff.changes)
    verdict = "REGRESSION" if diff.regressed else "no regression"
    lines.append(f"{verdict}: {regressions} regressed, {improvements} improved")
    return "\n".join(lines)
