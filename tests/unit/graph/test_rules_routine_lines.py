"""A change or event line at the same pace through the whole read (a checkpoint every five minutes) is
the system's routine, not a change: it neither makes the system a suspect nor explains another's
trouble. The same line once, shortly before the trouble, still does."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import ask, lines
from tools.facts import Digest

CHECKPOINT = "LOG: checkpoint complete: wrote <*> buffers"


def _digest(*, steady: bool) -> Digest:
    checkpoint = replace(
        lines("ledger-pg", CHECKPOINT, "2026-03-01T10:35:00Z", count=30, level="info"), steady=steady
    )
    slow = lines("orders-api", "GET /v1/orders took <*> ms", "2026-03-01T10:40:00Z", level="warn")
    return Digest(log_patterns=[checkpoint, slow])


def _root(digest: Digest) -> str | None:
    draft = diagnose_digest(ask("orders feel slow since 10:40, anything to worry about?", digest))
    return draft.root_cause.service if draft.root_cause else None


def test_a_steady_checkpoint_line_is_routine_and_explains_nothing() -> None:
    assert _root(_digest(steady=True)) != "ledger-pg"


def test_the_same_line_once_before_the_trouble_is_a_change() -> None:
    assert _root(_digest(steady=False)) == "ledger-pg"
