"""Runs every scenario of every world through the diagnosis graph and collects scored entries.

One toolbox and diagnoser per world, built by the server's own factories from the evaluation's settings
(fixture sources), a fresh evidence store per run. Scenarios run one after another so that results
are reproducible.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from api.backends import world_sources
from api.chat_flow import history_turn
from api.composition import build_toolbox, tool_limits
from api.diagnoser import Diagnoser, build_diagnoser, model_config
from api.evaluation.scoring import score_answer, totals
from api.evaluation.worlds import EvalScenario, load_scenarios
from api.settings import Settings
from graph.recorder import SilentObserver
from graph.runner import RunFailed, RunRequest, RunResult
from tools.world import load_world

RESULT_VERSION = 1
Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class EvalSetup:
    """What an evaluation runs with: the settings (tool bounds, run budgets, model) and the analyst."""

    settings: Settings = field(default_factory=Settings)
    analyst_name: str = "rules"  # "llm": the configured model, degrading to rules like the server


class AnalystUnconfigured(Exception):
    """`--analyst llm` was asked for but no model is configured."""


def build_setup(settings: Settings, analyst: str) -> EvalSetup:
    """Rule-based analyst by default; the LLM analyst (degrading to rules) when asked and configured."""
    if analyst != "rules" and model_config(settings) is None:
        raise AnalystUnconfigured("--analyst llm needs SUPERBIZ_MODEL__BASE_URL and SUPERBIZ_MODEL__NAME")
    return EvalSetup(settings=settings, analyst_name="rules" if analyst == "rules" else "llm")


@dataclass(slots=True)
class _Spent:
    """What the runs of one scenario spent, summed over its turns."""

    model_calls: int = 0
    tool_calls: int = 0
    tokens: int = 0
    repairs: int = 0


async def run_evaluation(
    world_dirs: Sequence[Path], setup: EvalSetup, progress: Progress | None = None
) -> dict[str, Any]:
    """Every scenario of every world, scored; the JSON-ready result with per-scenario entries and totals."""
    say = progress or (lambda _line: None)
    limits = tool_limits(setup.settings)
    entries: list[dict[str, Any]] = []
    worlds: list[str] = []
    for world_dir in world_dirs:
        world = load_world(world_dir)
        worlds.append(world.name)
        toolbox = build_toolbox(world_sources(world), limits)
        diagnoser = build_diagnoser(setup.settings, toolbox, use_model=setup.analyst_name == "llm")
        scenarios = load_scenarios(world)
        say(f"world {world.name}: {len(scenarios)} scenarios")
        for scenario in scenarios:
            entry = await _run_scenario(diagnoser, world.name, scenario)
            entries.append(entry)
            say(_progress_line(entry))
    return {
        "version": RESULT_VERSION,
        "analyst": setup.analyst_name,
        "worlds": worlds,
        "scenarios": entries,
        "totals": totals(entries),
    }


async def _run_scenario(diagnoser: Diagnoser, world: str, scenario: EvalScenario) -> dict[str, Any]:
    started = time.perf_counter()
    session_id = f"eval-{uuid.uuid4().hex[:12]}"
    history = list(scenario.history)
    spent = _Spent()
    result: RunResult | None = None
    failure: str | None = None
    for question in scenario.questions:
        try:
            request = RunRequest(
                run_id=uuid.uuid4().hex, session_id=session_id, query=question, history=list(history)
            )
            result = await diagnoser.start(request, observer=SilentObserver()).result()
        except RunFailed as failed:
            result, failure = None, failed.code
            break
        spent.model_calls += result.model_calls
        spent.tool_calls += result.tool_calls
        spent.tokens += result.tokens
        spent.repairs += int(result.trace.get("repair_count") or 0)
        history.append(history_turn(question, result))
    entry: dict[str, Any] = {
        "world": world,
        "id": scenario.id,
        "key": f"{world}/{scenario.id}",
        "question": scenario.question,
        "turns": scenario.turns,
        "outcome": result.outcome if result is not None else "FAILED",
        "failure_code": failure,
        "route": result.route if result is not None else None,
        "degraded": result.degraded if result is not None else True,
        "content": result.content if result is not None else None,
    }
    content = result.content if result is not None else {}
    evaluation = result.self_evaluation if result is not None else {}
    entry |= score_answer(
        scenario.expect,
        content,
        evaluation,
        max_confidence=scenario.max_confidence,
        unavailable_sources=scenario.unavailable_sources,
        route=result.route if result is not None else None,
    )
    entry |= {
        "repairs": spent.repairs,
        "model_calls": spent.model_calls,
        "tool_calls": spent.tool_calls,
        "tokens": spent.tokens,
        "wall_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    return entry


def _progress_line(entry: dict[str, Any]) -> str:
    marks = []
    for label, key in (
        ("service", "root_cause_service_hit"),
        ("category", "category_hit"),
        ("healthy", "healthy_correct"),
        ("verdict", "verdict_hit"),
        ("route", "route_hit"),
        ("data", "data_contains_present"),
    ):
        value = entry.get(key)
        if value is not None:
            marks.append(f"{label}={'hit' if value else 'MISS'}")
    if entry.get("unsupported_claims_released"):
        marks.append(f"UNSUPPORTED={entry['unsupported_claims_released']}")
    return f"  {entry['key']}: {entry['outcome']} {' '.join(marks)} ({entry['wall_ms']:.0f} ms)"
