"""What a node may use during one run: analysts, the evidence boundary, the observer, budgets.

It reaches nodes as LangGraph runtime context; nodes never import settings, clients or stores.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from graph.analysts.base import Analyst, BudgetExhausted, EvidenceRef
from tools.base import Evidence
from tools.facts import Digest

if TYPE_CHECKING:
    from graph.recorder import TraceRecorder


class RunEvidenceStore(Protocol):
    """The evidence items of one run (satisfied by `tools.evidence_store.RunEvidence`)."""

    def get(self, evidence_id: str) -> Evidence | None: ...
    def all(self) -> list[Evidence]: ...


class EvidenceBoundary(Protocol):
    """The tool boundary (satisfied by `tools.toolbox.Toolbox`); `call` never raises for a failing source."""

    async def call(self, tool: str, args: Mapping[str, Any], run: Any) -> Evidence: ...
    def tool_names(self) -> list[str]: ...
    def datasources(self) -> list[str]: ...
    async def now(self) -> datetime: ...


class DigestBuilder(Protocol):
    """`tools.digest.build_digest`: facts over evidence."""

    def __call__(self, evidence: Sequence[Evidence], *, now: datetime) -> Digest: ...


@dataclass(frozen=True, slots=True)
class GraphBudgets:
    """Per-run budgets, mapped from the chat settings block by the composition root."""

    max_model_calls: int = 8
    max_tool_calls: int = 40
    max_tokens: int = 60_000
    max_repairs: int = 2
    deadline_s: float = 120.0


@dataclass(slots=True)
class RunMeter:
    """Counts what one run spends; refuses a call that would pass a budget."""

    budgets: GraphBudgets
    model_calls: int = 0
    tokens: int = 0
    tool_calls: int = 0
    exhausted: str | None = None

    def charge_model_call(self) -> None:
        """Count one model call, or raise BudgetExhausted when calls or tokens are spent."""
        if self.tokens >= self.budgets.max_tokens:
            self._exhaust("tokens")
        if self.model_calls >= self.budgets.max_model_calls:
            self._exhaust("model_calls")
        self.model_calls += 1

    def add_tokens(self, tokens: int) -> None:
        self.tokens += max(0, tokens)

    def charge_tool_call(self) -> None:
        """Count one tool call, or raise BudgetExhausted when the tool budget is spent."""
        if self.tool_calls >= self.budgets.max_tool_calls:
            self._exhaust("tool_calls")
        self.tool_calls += 1

    @property
    def remaining_tool_calls(self) -> int:
        return max(0, self.budgets.max_tool_calls - self.tool_calls)

    def _exhaust(self, budget: str) -> None:
        self.exhausted = self.exhausted or budget
        raise BudgetExhausted(budget)


@dataclass(slots=True)
class RunContext:
    """Everything one run's nodes use; built per run by the runner from shared parts."""

    run_id: str
    analyst: Analyst
    rules: Analyst  # the deterministic analyst a failing model step degrades to
    # Lines released text must never echo (the model's instructions), given by whoever builds the
    # analysts: the semantic guard checks them whichever analyst drafted.
    forbidden_lines: tuple[str, ...]
    toolbox: EvidenceBoundary
    evidence: RunEvidenceStore
    digest: DigestBuilder
    recorder: TraceRecorder
    budgets: GraphBudgets
    meter: RunMeter
    clock: Callable[[], float] = time.monotonic
    _digests: dict[tuple[str, ...], tuple[Digest, str]] = field(default_factory=dict)

    def items(self, ids: Sequence[str] | None = None) -> list[Evidence]:
        """Evidence of this run, all or the given ids (unknown ids are skipped)."""
        if ids is None:
            return self.evidence.all()
        found = (self.evidence.get(evidence_id) for evidence_id in ids)
        return [item for item in found if item is not None]

    def refs(self, items: Sequence[Evidence]) -> list[EvidenceRef]:
        """What analysts may see of evidence: ids, titles and bounded summaries, never raw data."""
        return [
            EvidenceRef(
                id=item.id,
                source=item.source.value,
                tool=item.tool,
                title=item.title,
                status=item.status.value,
                summary=item.summary[:600],
                args=dict(item.query),
            )
            for item in items
        ]

    async def digest_of(self, items: Sequence[Evidence], *, keep: bool = True) -> tuple[Digest, str]:
        """The digest of the given evidence at the world's current time, and that time in ISO.

        Cached per evidence set: diagnose and the guards read the same digest within one run.
        `keep=False` (a planning round, whose evidence grows right after) reads the cache but does
        not fill it, so the digest is not held while the round waits on a model.
        """
        key = tuple(sorted(item.id for item in items))
        if (cached := self._digests.get(key)) is not None:
            return cached
        now = await self.toolbox.now()
        digest = (self.digest(items, now=now), now.isoformat())
        if keep:
            self._digests[key] = digest
        return digest
