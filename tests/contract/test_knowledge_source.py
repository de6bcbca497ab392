"""Contract of the knowledge source over a directory of Markdown runbooks (the same class serves the
bundled demo runbooks and a configured directory)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.base import EvidenceStatus, KnowledgeSource, Sources
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.runbooks import RunbookLibrary
from tools.toolbox import Toolbox

QUEUE_RUNBOOK = """# Message queue backlog

Preamble about the broker.

## Symptoms

Consumer lag grows on the ledger-writer; partitions stop draining.

## Mitigation

Restart the stuck consumer group and check the dead-letter topic.

```
# not a heading inside a code fence
kafka-consumer-groups --describe
```
"""

DISK_RUNBOOK = """# Disk pressure

## Diagnosis

The volume fills with rotated logs; inode exhaustion looks the same.
"""


@pytest.fixture
def library(tmp_path: Path) -> KnowledgeSource:
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "queue.md").write_text(QUEUE_RUNBOOK)
    (tmp_path / "disk.md").write_text(DISK_RUNBOOK)
    (tmp_path / "notes.txt").write_text("consumer lag everywhere")
    return RunbookLibrary(tmp_path, max_passage_chars=80)


async def test_index_lists_files_and_headings(library: KnowledgeSource) -> None:
    index = await library.index(limit=50)
    assert ("ops/queue.md", "Symptoms") in index
    assert ("ops/queue.md", "Mitigation") in index
    assert ("disk.md", "Diagnosis") in index
    assert not any(file.endswith(".txt") for file, _ in index)
    assert not any("not a heading" in heading for _, heading in index)
    assert len(await library.index(limit=2)) == 2


async def test_search_ranks_the_matching_passage_first(library: KnowledgeSource) -> None:
    passages = await library.search(query="consumer lag on ledger-writer", limit=3)
    assert passages[0].file == "ops/queue.md"
    assert passages[0].heading == "Symptoms"
    assert "ledger-writer" in passages[0].text
    assert all(p.file != "disk.md" for p in passages)
    assert passages == sorted(passages, key=lambda p: -p.score)


async def test_passages_are_bounded(library: KnowledgeSource) -> None:
    passages = await library.search(query="restart consumer group dead-letter", limit=5)
    assert passages and all(len(p.text) <= 80 for p in passages)


async def test_unrelated_query_finds_nothing(library: KnowledgeSource) -> None:
    assert await library.search(query="zebra", limit=5) == []


async def test_health_reports_an_empty_directory(tmp_path: Path, library: KnowledgeSource) -> None:
    assert (await library.health()).ok
    empty = RunbookLibrary(tmp_path / "missing")
    assert not (await empty.health()).ok
    assert await empty.search(query="anything", limit=3) == []


async def test_toolbox_search_runbooks_returns_passages(library: KnowledgeSource) -> None:
    toolbox = Toolbox(Sources(knowledge=library), ToolLimits(), EvidenceCache(ttl_s=5, capacity=8))
    run = RunEvidence(budget_bytes=100_000)
    found = await toolbox.call("search_runbooks", {"query": "inode exhaustion"}, run)
    assert found.status is EvidenceStatus.OK
    assert found.data["passages"][0]["file"] == "disk.md"
    listed = await toolbox.call("list_runbooks", {}, run)
    assert {"file": "disk.md", "heading": "Diagnosis"} in listed.data["runbooks"]
    assert [found.id, listed.id] == ["knowledge-1", "knowledge-2"]
