"""The tool boundary scopes past cases to the run's principal, in the handler and in the shared cache."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tools.base import EvidenceStatus, Passage, PastCase, SourceHealth, Sources
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.toolbox import Toolbox
from tools.toolbox.catalog import TOOLS_BY_NAME
from tools.toolbox.spec import Answer, ToolContext

SEARCH = {"query": "why is checkout slow", "limit": 3}


class OwnedCases:
    """A case library holding one case per principal; records who asked."""

    def __init__(self) -> None:
        self.asked: list[str | None] = []

    async def similar_cases(self, *, query: str, limit: int, principal: str | None) -> list[PastCase]:
        self.asked.append(principal)
        owner = principal or "nobody"
        return [PastCase(f"case-{owner}", f"{owner}'s question", "{}", "checkout", "db", f"run-{owner}", 1.0)]


class Runbooks:
    """A knowledge source that is never reached (the test replaces the handler)."""

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    async def index(self, *, limit: int) -> list[tuple[str, str]]:
        return []

    async def search(self, *, query: str, limit: int) -> list[Passage]:
        return []


def _toolbox(cases: OwnedCases) -> Toolbox:
    return Toolbox(Sources(cases=cases), ToolLimits(), EvidenceCache(ttl_s=300, capacity=16))


def _run(principal: str | None) -> RunEvidence:
    return RunEvidence(budget_bytes=1_000_000, principal=principal)


async def test_identical_case_searches_of_two_principals_never_share_a_cached_answer() -> None:
    cases = OwnedCases()
    toolbox = _toolbox(cases)
    alice = await toolbox.call("search_cases", SEARCH, _run("alice"))
    bob = await toolbox.call("search_cases", SEARCH, _run("bob"))
    anonymous = await toolbox.call("search_cases", SEARCH, _run(None))

    assert cases.asked == ["alice", "bob", None]
    assert [c["case_id"] for c in alice.data["cases"]] == ["case-alice"]
    assert [c["case_id"] for c in bob.data["cases"]] == ["case-bob"]
    assert [c["case_id"] for c in anonymous.data["cases"]] == ["case-nobody"]
    assert "alice" not in bob.summary + str(bob.data) + str(bob.query)


async def test_one_principals_repeated_case_search_is_still_served_from_the_cache() -> None:
    cases = OwnedCases()
    toolbox = _toolbox(cases)
    first = await toolbox.call("search_cases", SEARCH, _run("alice"))
    again = await toolbox.call("search_cases", SEARCH, _run("alice"))
    assert cases.asked == ["alice"]
    assert first.status is again.status is EvidenceStatus.OK
    assert again.data == first.data


async def test_tools_of_shared_sources_see_no_principal_and_share_one_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str | None] = []

    async def handler(ctx: ToolContext, args: object) -> Answer:
        seen.append(ctx.principal)
        return Answer(title="runbooks", summary="one passage", data={"passages": []})

    spec = TOOLS_BY_NAME["search_runbooks"]
    monkeypatch.setitem(TOOLS_BY_NAME, "search_runbooks", replace(spec, handler=handler))
    toolbox = Toolbox(Sources(knowledge=Runbooks()), ToolLimits(), EvidenceCache(ttl_s=300, capacity=16))
    for principal in ("alice", "bob", None):
        evidence = await toolbox.call("search_runbooks", {"query": "checkout"}, _run(principal))
        assert evidence.status is EvidenceStatus.OK
    # runbooks answer the same whoever asks: one call, and its handler never learns who asked
    assert seen == [None]
