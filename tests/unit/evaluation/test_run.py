"""`eval run` end to end with the rule-based analyst on a temporary folder of worlds."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from api.backends import world_sources
from api.composition import build_toolbox
from api.evaluation.cli import add_eval_commands
from api.evaluation.worlds import discover_worlds
from tools.evidence_store import RunEvidence
from tools.limits import ToolLimits
from tools.world import load_world

WORLDS = Path(__file__).resolve().parents[2] / "data" / "worlds"


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="superbiz")
    add_eval_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def test_discover_accepts_a_world_or_a_folder_of_worlds(tmp_path: Path) -> None:
    shutil.copytree(WORLDS / "notify", tmp_path / "one")
    assert discover_worlds([tmp_path / "one"]) == [(tmp_path / "one").resolve()]
    assert discover_worlds([tmp_path]) == [(tmp_path / "one").resolve()]


async def test_world_without_metrics_answers_unavailable() -> None:
    toolbox = build_toolbox(world_sources(load_world(WORLDS / "iot")), ToolLimits())
    run = RunEvidence(budget_bytes=1_000_000)
    evidence = await toolbox.call("list_metrics", {}, run)
    assert evidence.status.value == "UNAVAILABLE"
    alerts = await toolbox.call("list_alerts", {}, run)
    assert alerts.status.value == "OK"


def test_run_on_a_temp_world_folder_writes_scored_result(tmp_path: Path) -> None:
    worlds = tmp_path / "worlds"
    shutil.copytree(WORLDS / "notify", worlds / "notify")
    shutil.copytree(WORLDS / "analytics", worlds / "analytics")
    out = tmp_path / "result.json"
    assert _main(["eval", "run", "--worlds", str(worlds), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    keys = [entry["key"] for entry in result["scenarios"]]
    assert keys == [
        "analytics/analytics-healthy-status",
        "analytics/analytics-healthy-dashboards",
        "notify/notify-emails-not-sent",
        "notify/notify-crashloop",
    ]
    first = result["scenarios"][2]
    assert first["content"]["content_type"] == "diagnosis_report"
    assert first["root_cause_service_hit"] is True
    assert result["totals"]["healthy_correct"] == 2
    assert result["totals"]["unsupported_claims_released"] == 0
