"""`eval diff`: a result against itself passes; a broken scenario is named and fails."""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from api.evaluation.cli import add_eval_commands
from api.evaluation.diff import diff_results

BASELINE = Path(__file__).resolve().parents[2] / "data" / "eval" / "baseline.json"


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="superbiz")
    add_eval_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def _baseline() -> dict[str, Any]:
    result: dict[str, Any] = json.loads(BASELINE.read_text())
    return result


def test_baseline_against_itself_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["eval", "diff", str(BASELINE), str(BASELINE)]) == 0
    assert "no regression" in capsys.readouterr().out


def test_one_broken_scenario_is_named_and_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = copy.deepcopy(_baseline())
    victim = next(e for e in broken["scenarios"] if e["root_cause_service_hit"])
    victim["root_cause_service_hit"] = False
    new = tmp_path / "new.json"
    new.write_text(json.dumps(broken))
    assert _main(["eval", "diff", str(BASELINE), str(new)]) == 1
    out = capsys.readouterr().out
    assert f"REGRESSED {victim['key']}: root_cause_service_hit: hit -> miss" in out
    assert out.count("REGRESSED") == 1


def test_new_unsupported_claim_missing_scenario_and_wrong_healthy_regress() -> None:
    base = _baseline()
    new = copy.deepcopy(base)
    claims = new["scenarios"][0]
    claims["unsupported_claims_released"] = 1
    healthy = next(e for e in new["scenarios"] if e.get("expect_healthy") is True)
    healthy["healthy_correct"] = False
    dropped = new["scenarios"].pop()
    diff = diff_results(base, new)
    assert diff.regressed
    assert diff.missing == [dropped["key"]]
    regressed = {c.key: c.regressed for c in diff.changes}
    assert regressed[claims["key"]] == ["unsupported_claims_released: 0 -> 1"]
    assert regressed[healthy["key"]] == ["healthy_correct: hit -> miss"]


def test_improvement_alone_is_not_a_regression() -> None:
    base = _baseline()
    worse = copy.deepcopy(base)
    worse["scenarios"][0]["root_cause_service_hit"] = False
    diff = diff_results(worse, base)
    assert not diff.regressed
    assert diff.changes[0].improved == ["root_cause_service_hit: miss -> hit"]
