"""Runs every scenario of every world through the diagnosis graph and collects scored entries.

One toolbox per world (fixture sources), one graph and runner for the whole evaluation, a fresh
evidence store per run. Scenarios run one after another so that results are reproducible.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from api.backends import world_sources
from api.chat_use_case import history_turn
from api.engine import DiagnosisEngine
from api.evaluation.scoring import score_answer, totals
from api.evaluation.worlds import EvalScenario, load_scenarios
from graph.analysts.base import Analyst
from graph.build import build_graph
from graph.context import GraphBudgets
from graph.recorder import SilentObserver
from graph.runner import DiagnosisRunner, RunFailed, RunRequest, RunResult
from tools.evidence_store import EvidenceCache
from tools.limits import ToolLimits
from tools.toolbox import Toolbox
from tools.world import load_world

RESULT_VERSION = 1
Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class EvalSetup:
    """The shared parts of an evaluation: the analyst pair, tool bounds and run budgets."""

    analyst: Analyst
    rules: Analyst
    analyst_name: str = "rules"
    limits: ToolLimits = field(default_factory=ToolLimits)
    budgets: GraphBudgets = field(default_factory=GraphBudgets)
    node_timeout_s: float = 60.0
    recursion_limit: int = 60


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
    runner = DiagnosisRunner(
        build_graph(node_timeout_s=setup.node_timeout_s), recursion_limit=setup.recursion_limit
    )
    entries: list[dict[str, Any]] = []
    worlds: list[str] = []
    for world_dir in world_dirs:
        world = load_world(world_dir)
        worlds.append(world.name)
        engine = DiagnosisEngine(
            runner=runner,
            analyst=setup.analyst,
            rules=setup.rules,
            toolbox=Toolbox(
                world_sources(world),
                setup.limits,
                EvidenceCache(ttl_s=setup.limits.cache_ttl_s, capacity=setup.limits.cache_capacity),
            ),
            budgets=setup.budgets,
            evidence_budget_bytes=setup.limits.run_evidence_budget_bytes,
        )
        scenarios = load_scenarios(world)
        say(f"world {world.name}: {len(scenarios)} scenarios")
        for scenario in scenarios:
            entry = await _run_scenario(engine, world.name, scenario)
            entries.append(entry)
            say(_progress_line(entry))
    return {
        "version": RESULT_VERSION,
        "analyst": setup.analyst_name,
        "worlds": worlds,
        "scenarios": entries,
        "totals": totals(entries),
    }


async def _run_scenario(engine: DiagnosisEngine, world: str, scenario: EvalScenario) -> dict[str, Any]:
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
            result = await engine.start(request, observer=SilentObserver()).result()
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
    ):
        value = entry.get(key)
        if value is not None:
            marks.append(f"{label}={'hit' if value else 'MISS'}")
    if entry.get("unsupported_claims_released"):
        marks.append(f"UNSUPPORTED={entry['unsupported_claims_released']}")
    return f"  {entry['key']}: {entry['outcome']} {' '.join(marks)} ({entry['wall_ms']:.0f} ms)"
