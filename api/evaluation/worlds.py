"""Worlds for evaluation: find world directories and read their scenarios."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tools.world import ScenarioExpectation, World

# A directory is a world when it holds at least one of these files.
_WORLD_MARKERS = ("world.yaml", "scenarios.yaml", "alerts.json", "metrics.json", "logs.jsonl")


def is_world(directory: Path) -> bool:
    """True when `directory` itself holds world files."""
    return any((directory / marker).is_file() for marker in _WORLD_MARKERS)


def discover_worlds(folders: Iterable[Path]) -> list[Path]:
    """Every world under the given folders: a folder that is a world, or its world subfolders."""
    found: list[Path] = []
    for folder in folders:
        if is_world(folder):
            found.append(folder)
            continue
        if folder.is_dir():
            found += [child for child in sorted(folder.iterdir()) if child.is_dir() and is_world(child)]
    return list(dict.fromkeys(path.resolve() for path in found))


@dataclass(frozen=True, slots=True)
class EvalScenario:
    """A scenario as the harness runs it: the world format's fields plus optional multi-turn extensions.

    `history` is prior conversation handed to the first run (`{query, summary, root_cause_service}`);
    `turns` are follow-up questions asked after `question` in the same session. The expectation is
    judged on the answer to the last question asked. `expect.max_confidence` (optional) bounds the
    root-cause confidence and `expect.unavailable_sources` (optional) names sources the answer must
    report as unavailable, for worlds where a key source is missing.
    """

    id: str
    question: str
    expect: ScenarioExpectation
    history: list[dict[str, Any]] = field(default_factory=list)
    turns: list[str] = field(default_factory=list)
    max_confidence: float | None = None
    unavailable_sources: list[str] = field(default_factory=list)

    @property
    def questions(self) -> list[str]:
        return [self.question, *self.turns]


def load_scenarios(world: World) -> list[EvalScenario]:
    """The world's scenarios with the multi-turn fields, which the world loader does not keep."""
    path = world.root / "scenarios.yaml"
    raw: Sequence[Any] = yaml.safe_load(path.read_text()) if path.is_file() else []
    extras = {str(item.get("id")): item for item in raw or [] if isinstance(item, dict)}
    scenarios: list[EvalScenario] = []
    for scenario in world.scenarios:
        extra = extras.get(scenario.id, {})
        expect_raw = extra.get("expect") or {}
        cap = expect_raw.get("max_confidence")
        scenarios.append(
            EvalScenario(
                id=scenario.id,
                question=scenario.question,
                expect=scenario.expect,
                history=[dict(turn) for turn in extra.get("history") or []],
                turns=[str(turn) for turn in extra.get("turns") or []],
                max_confidence=float(cap) if cap is not None else None,
                unavailable_sources=[str(s) for s in expect_raw.get("unavailable_sources") or []],
            )
        )
    return scenarios
