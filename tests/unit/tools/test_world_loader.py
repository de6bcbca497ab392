"""Loading and validating world directories: absent files, bad data named by file, size caps."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.support.world_builder import build_contract_world, write_world
from tools.world import World, WorldError, WorldLimits, load_world

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def test_contract_world_loads_every_part(tmp_path: Path) -> None:
    built = build_contract_world(tmp_path, NOW)

    world = load_world(built.path)

    assert world.name == "contract"
    assert world.now == NOW
    assert world.now.tzinfo is UTC
    assert len(world.alerts) == 5
    assert {series.metric for series in world.series} >= {"app_request_latency_seconds"}
    assert [line.ts for line in world.logs] == sorted(line.ts for line in world.logs)


def test_empty_directory_is_an_empty_world(tmp_path: Path) -> None:
    world = load_world(tmp_path)

    assert world == World(
        root=tmp_path, name=tmp_path.name, description="", now=datetime(1970, 1, 1, tzinfo=UTC)
    )
    assert world.docs_dir is None


def test_now_defaults_to_the_last_recorded_instant(tmp_path: Path) -> None:
    (tmp_path / "metrics.json").write_text(
        json.dumps([{"metric": "m", "samples": [[1_714_564_800, 1], [1_714_564_860, 2]]}])
    )

    assert load_world(tmp_path).now == datetime.fromtimestamp(1_714_564_860, UTC)


def test_other_timezones_are_normalised_to_utc(tmp_path: Path) -> None:
    (tmp_path / "world.yaml").write_text("name: w\nnow: '2024-05-01T14:00:00+02:00'\n")

    assert load_world(tmp_path).now == NOW


def test_sql_scripts_docs_and_scenarios_are_exposed(tmp_path: Path) -> None:
    write_world(
        tmp_path,
        name="w",
        now=NOW,
        scenarios=[
            {
                "id": "s1",
                "question": "why?",
                "expect": {"root_cause_service": "a", "keywords_all": ["x"]},
            }
        ],
    )
    (tmp_path / "sql").mkdir()
    (tmp_path / "sql" / "orders.sql").write_text("CREATE TABLE t (a INT);")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# B")
    (tmp_path / "docs" / "a.md").write_text("# A")

    world = load_world(tmp_path)

    assert world.sql_scripts == {"orders": tmp_path / "sql" / "orders.sql"}
    assert world.docs == (tmp_path / "docs" / "a.md", tmp_path / "docs" / "b.md")
    assert world.docs_dir == tmp_path / "docs"
    assert world.scenarios[0].expect.root_cause_service == "a"
    assert world.scenarios[0].expect.keywords_all == ["x"]


def test_log_labels_are_service_level_and_other_scalars(tmp_path: Path) -> None:
    write_world(
        tmp_path,
        name="w",
        now=NOW,
        logs=[
            {
                "ts": "2024-05-01T11:00:00Z",
                "service": "a",
                "level": "error",
                "message": "boom",
                "host": "h1",
                "retries": 3,
                "cached": False,
                "nested": {"x": 1},
                "bad-name": "y",
                "maybe": None,
            }
        ],
    )

    [line] = load_world(tmp_path).logs

    assert line.labels() == {
        "service": "a",
        "level": "error",
        "host": "h1",
        "retries": "3",
        "cached": "false",
    }


@pytest.mark.parametrize(
    ("file", "content", "problem"),
    [
        ("world.yaml", "now: 2024-05-01 12:00:00\n", "world.yaml: now"),  # no timezone
        ("world.yaml", "now: [unclosed\n", "world.yaml: invalid YAML"),
        ("alerts.json", '[{"labels": {"service": "a"}}]', "alerts.json: 0.labels"),
        (
            "alerts.json",
            '[{"labels": {"alertname": "A"}, "status": "silenced"}]',
            "alerts.json: 0.status",
        ),
        ("alerts.json", '{"not": "a list"}', "alerts.json"),
        ("metrics.json", '[{"metric": "bad name", "samples": []}]', "metrics.json: 0.metric"),
        ("metrics.json", '[{"metric": "m", "samples": [[1, "x"]]}]', "metrics.json: 0.samples"),
        ("metrics.json", '[{"metric": "m", "samples": [', "metrics.json: invalid JSON at line 1"),
        (
            "logs.jsonl",
            '{"ts": "2024-05-01T11:00:00Z", "service": "a", "message": "ok"}\n'
            '{"service": "a", "message": "no ts"}\n',
            "logs.jsonl line 2: ts",
        ),
        ("scenarios.yaml", "- question: no id\n", "scenarios.yaml: 0.id"),
    ],
)
def test_bad_data_is_reported_with_its_file(tmp_path: Path, file: str, content: str, problem: str) -> None:
    (tmp_path / file).write_text(content)

    with pytest.raises(WorldError) as raised:
        load_world(tmp_path)

    assert str(raised.value).startswith(problem)


def test_files_over_the_cap_are_refused_unread(tmp_path: Path) -> None:
    (tmp_path / "logs.jsonl").write_text("x" * 2_000)

    with pytest.raises(WorldError, match=r"logs\.jsonl: larger than the 1000-byte cap"):
        load_world(tmp_path, limits=WorldLimits(max_data_bytes=1_000))


def test_too_many_log_lines_are_refused(tmp_path: Path) -> None:
    line = {"ts": "2024-05-01T11:00:00Z", "service": "a", "message": "m"}
    write_world(tmp_path, name="w", now=NOW, logs=[line] * 4)

    with pytest.raises(WorldError, match="more than 3 lines"):
        load_world(tmp_path, limits=WorldLimits(max_log_lines=3))


def test_a_missing_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(WorldError, match="not a directory"):
        load_world(tmp_path / "nowhere")


def test_the_alert_history_a_world_is_served_is_bounded(tmp_path: Path) -> None:
    """Each alert's `ALERTS` series keeps its newest week of evaluations (a year-old alert reaches
    now), and the synthesized series stay within the world's series cap."""
    old = {"labels": {"alertname": "Ancient"}, "startsAt": "2023-05-01T12:00:00Z", "status": "firing"}
    many = [
        {"labels": {"alertname": f"A{n}"}, "startsAt": "2024-05-01T11:00:00Z", "status": "firing"}
        for n in range(10)
    ]
    world = load_world(
        write_world(tmp_path, name="w", now=NOW, alerts=[old, *many]), limits=WorldLimits(max_series=4)
    )
    history = [s for s in world.series if s.metric == "ALERTS"]
    assert len(history) == 4
    ancient = history[0]
    assert len(ancient.samples) == 10_080
    assert ancient.samples[-1][0] >= NOW.timestamp() - 60
