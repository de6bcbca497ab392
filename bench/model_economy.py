"""Item 7: model calls and prompt tokens per diagnosis with the LLM analyst on the demo world.

The scripted model replays what the rule-based analyst decides for the same question (captured
in-process first), so the LLM run takes the same path and its prompts carry the real evidence.
Prompt tokens are counted as prompt characters / 4 (the scripted server's usage is fixed).
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import sqlalchemy as sa
from pydantic import BaseModel

from api.backends import world_sources
from api.composition import tool_limits
from api.diagnoser import build_diagnoser
from bench.cancellation import model_settings
from bench.figures import ItemResult, Target, mean
from bench.load import DEMO_QUESTION, chat_run, client
from bench.plan import BenchContext
from bench.serving import bench_settings, database, served, services
from graph.analysts.base import (
    DiagnoseRequest,
    Draft,
    ModelMeter,
    Plan,
    PlanRequest,
    Repair,
    RepairRequest,
    Route,
    RouteRequest,
)
from graph.analysts.llm.analyst import asks_model_to_plan
from graph.analysts.llm.prompts import PROMPT_LINES
from graph.analysts.rules.analyst import RuleAnalyst
from graph.analysts.rules.route import confident_route
from graph.recorder import SilentObserver
from graph.runner import RunParts, RunRequest
from persistence import tables
from tests.support.scripted_llm import ScriptedLLM, ToolCall, scripted_llm
from tools.demo_world import DEMO_WORLD_DIR
from tools.digest import build_digest
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.toolbox import Toolbox
from tools.world import load_world

A = TypeVar("A", bound=BaseModel)
CALLS_TARGET = Target("<=", 3)
TOKENS_TARGET = Target("<", 6_000)


class RecordingAnalyst:
    """The rule-based analyst, remembering each step's answer under the tool name the LLM would use."""

    name = "rules"

    def __init__(self) -> None:
        self._rules = RuleAnalyst()
        self.answers: list[tuple[str, BaseModel]] = []

    # Only the steps the LLM analyst really asks the model for are scripted (in the same order).
    async def route(self, request: RouteRequest, meter: ModelMeter) -> Route:
        answer = await self._rules.route(request, meter)
        return answer if confident_route(request) is not None else self._keep("Route", answer)

    async def plan(self, request: PlanRequest, meter: ModelMeter) -> Plan:
        answer = await self._rules.plan(request, meter)
        return self._keep("Plan", answer) if asks_model_to_plan(request) else answer

    async def diagnose(self, request: DiagnoseRequest, meter: ModelMeter) -> Draft:
        return self._keep("Draft", await self._rules.diagnose(request, meter))

    async def repair(self, request: RepairRequest, meter: ModelMeter) -> Repair:
        return self._keep("Repair", await self._rules.repair(request, meter))

    def _keep(self, tool: str, answer: A) -> A:
        self.answers.append((tool, answer))
        return answer


async def rule_answers(database_url: str) -> list[tuple[str, BaseModel]]:
    """What the rule-based analyst answers at each step of one demo-world diagnosis."""
    settings = bench_settings(database_url)
    cache = EvidenceCache(ttl_s=1.0, capacity=64)
    toolbox = Toolbox(world_sources(load_world(DEMO_WORLD_DIR)), tool_limits(settings), cache)
    diagnoser = build_diagnoser(settings, toolbox, use_model=False)
    recording = RecordingAnalyst()
    parts = RunParts(
        analyst=recording,
        rules=diagnoser.rules,
        forbidden_lines=PROMPT_LINES,
        toolbox=toolbox,
        evidence=RunEvidence(budget_bytes=diagnoser.evidence_budget_bytes),
        digest=build_digest,
        budgets=diagnoser.budgets,
    )
    request = RunRequest(run_id="economy-capture", session_id="economy", query=DEMO_QUESTION)
    await diagnoser.runner.start(request, parts, SilentObserver()).result()
    return recording.answers


def script(llm: ScriptedLLM, answers: list[tuple[str, BaseModel]], runs: int) -> None:
    for _ in range(runs):
        for tool, answer in answers:
            llm.script(tool, ToolCall(answer.model_dump(mode="json")))


async def run(ctx: BenchContext) -> ItemResult:
    result = ItemResult("model_economy", "Model economy: LLM analyst on the demo world (scripted model)")
    calls: list[int] = []
    tokens: list[float] = []
    raw_bytes: list[int] = []
    outcomes: list[str] = []
    with database("sqlite", ctx.endpoints) as url:
        answers = await rule_answers(url)
        async with scripted_llm() as llm:
            script(llm, answers, ctx.sizes.economy_runs)
            async with (
                served(bench_settings(url, model=model_settings(llm))) as (app, base),
                client() as http,
            ):
                for _ in range(ctx.sizes.economy_runs):
                    before = len(llm.requests)
                    timing = await chat_run(http, base)
                    bodies = llm.requests[before:]
                    calls.append(len(bodies))
                    tokens.append(sum(_prompt_chars(body) for body in bodies) / 4)
                    raw_bytes.append(await _evidence_bytes(services(app).engine, timing.run_id))
                    outcomes.append(timing.outcome)
            unscripted = llm.unscripted
    result.add("model calls per diagnosis", mean(calls), "calls", CALLS_TARGET)
    result.add("prompt tokens per diagnosis (chars/4)", mean(tokens), "tokens", TOKENS_TARGET)
    result.add("raw evidence the tools returned", mean(raw_bytes), "bytes")
    result.add("prompt tokens / raw evidence bytes", mean(tokens) / max(1.0, mean(raw_bytes)), "")
    result.details = {
        "steps": [tool for tool, _ in answers],
        "outcomes": outcomes,
        "unscripted_requests": unscripted,
        "tokens_per_call": tokens,
    }
    return result


def _prompt_chars(body: dict[str, Any]) -> int:
    messages = body.get("messages") or []
    text = sum(len(str(m.get("content") or "")) for m in messages)
    return text + len(json.dumps(body.get("tools") or []))


async def _evidence_bytes(engine: Any, run_id: str) -> int:
    tool = tables.metadata.tables["tool_invocation"]
    query = sa.select(sa.func.coalesce(sa.func.sum(tool.c.bytes), 0)).where(tool.c.run_id == run_id)
    async with engine.connect() as conn:
        return int((await conn.execute(query)).scalar_one())
