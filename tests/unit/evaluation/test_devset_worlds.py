"""The development set (tests/data/devset, issue 22) stays loadable, judged and reproducible."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from api.evaluation.worlds import discover_worlds, load_scenarios
from tests.data.devset.devset_writer import DEVSET_DIR
from tests.data.devset.generate import BUILDERS
from tools.world import CATEGORY_TAGS, load_world

CLASSES = {
    "healthy-noise",
    "vendor-named",
    "event-driven",
    "compositional",
    "red-herring",
    "data-question",
    "missing-sources",
}
WORLD_DIRS = discover_worlds([DEVSET_DIR])


def test_the_devset_has_its_twenty_worlds_and_ten_data_questions() -> None:
    assert len(WORLD_DIRS) >= 20
    kinds = [s["class"] for d in WORLD_DIRS for s in yaml.safe_load((d / "scenarios.yaml").read_text())]
    assert kinds.count("data-question") >= 10
    assert set(kinds) <= CLASSES


@pytest.mark.parametrize("world_dir", WORLD_DIRS, ids=lambda path: Path(path).name)
def test_every_devset_world_loads_and_every_scenario_is_judged(world_dir: Path) -> None:
    world = load_world(world_dir)
    scenarios = load_scenarios(world)
    assert scenarios, "a devset world asks at least one question"
    for scenario in scenarios:
        expect = scenario.expect
        assert expect.category is None or expect.category in CATEGORY_TAGS, scenario.id
        assert expect.verdict or expect.route or expect.data_contains, f"{scenario.id} judges nothing new"
        if expect.route == "lookup":
            assert expect.data_contains or expect.data_none, f"{scenario.id}: a data question names its data"


def test_the_generator_reproduces_the_committed_worlds(tmp_path: Path) -> None:
    for build in BUILDERS:
        written = build().write(tmp_path)
        for file in sorted(written.iterdir()):
            committed = DEVSET_DIR / written.name / file.name
            assert committed.read_bytes() == file.read_bytes(), (
                f"{written.name}/{file.name}: run the generator"
            )
