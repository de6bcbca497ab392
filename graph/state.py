"""The one graph state and its reducers.

Evidence items themselves live in the run's evidence store (context); state carries only their ids.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from graph.analysts.base import Draft, PlannedCall, Route
from graph.analysts.lookup import LookupAnswer


def _keep_unique(left: list[str], right: list[str]) -> list[str]:
    """Append ids from concurrent executors in task order, dropping repeats."""
    return list(dict.fromkeys([*left, *right]))


def _first_set(left: str | None, right: str | None) -> str | None:
    """The first budget that ran out wins; later lanes cannot clear it."""
    return left or right


class ExecutorInput(TypedDict):
    """The slice one executor lane receives through `Send`."""

    lane: str
    calls: list[PlannedCall]


class DiagnosisState(TypedDict, total=False):
    """State of one diagnosis run; keys written by parallel executors carry reducers."""

    query: str
    history: list[dict[str, Any]]
    services: list[str]
    flow: str
    route: Route
    plan_round: int
    plan: list[PlannedCall]
    calls_made: Annotated[list[str], operator.add]
    evidence_ids: Annotated[list[str], _keep_unique]
    draft: Draft | None
    lookup: LookupAnswer | None  # the lookup route's answer, in place of a draft
    violations: list[str]
    guard_report: dict[str, Any]
    semantic_report: dict[str, Any]
    repair_count: int
    evidence_retry_count: int
    budget_exhausted: Annotated[str | None, _first_set]
    max_repairs: int
    repair_calls: list[PlannedCall]
    fallback_reason: str | None
    content: dict[str, Any]
    outcome: str
    termination_reason: str
