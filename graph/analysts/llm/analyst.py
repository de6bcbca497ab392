"""The LLM analyst: one structured model call per judgement step; any model failure is an AnalystUnavailable.

Model calls are spent only where judgement pays: routing an unclear question, choosing the targeted
calls after discovery, drafting and repairing. The mechanical steps (routing a plain symptom question
or greeting, the discovery round, the SQL follow-ups) are the rule-based analyst's, as fast as they
are deterministic; a diagnosis costs two model calls when its draft passes the guard.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import cache
from typing import Any, TypeVar

import openai
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError

from graph.analysts.base import (
    Analyst,
    AnalystUnavailable,
    DiagnoseRequest,
    Draft,
    EvidenceRef,
    ModelMeter,
    Plan,
    PlanRequest,
    Repair,
    RepairRequest,
    Route,
    RouteRequest,
)
from graph.analysts.llm.lookup import lookup_calls, lookup_payload
from graph.analysts.llm.model import ModelConfig, ModelGate, build_chat_model
from graph.analysts.llm.payload import (
    MAX_FACTS_PER_KIND,
    compact,
    digest_view,
    discovery_view,
    evidence_view,
    history_view,
)
from graph.analysts.llm.prompts import (
    DIAGNOSE_PROMPT,
    LOOKUP_PROMPT,
    PLAN_PROMPT,
    PLAN_TOOLS,
    REPAIR_PROMPT,
    ROUTE_PROMPT,
)
from graph.analysts.llm.verdicts import hold_rules, verdict_checks
from graph.analysts.rules.route import confident_route
from tools.facts import Digest

M = TypeVar("M", bound=BaseModel)
log = logging.getLogger(__name__)
# The one planning round the model answers: targeted calls once discovery has shown what exists.
MODEL_PLAN_ROUND = 2
# Facts per kind in a repair prompt: the violations say what to fix, the draft says what was claimed.
REPAIR_FACTS_PER_KIND = 6


def asks_model_to_plan(request: PlanRequest) -> bool:
    """Whether `LlmAnalyst.plan` spends a model call on this round (else the rules plan it)."""
    return request.round == MODEL_PLAN_ROUND and request.route.route == "complex"


class LlmAnalyst:
    """Analyst backed by a chat model through function-calling structured output.

    `rules` is the run's one rule-based analyst (the one a failing step degrades to): it plans the
    rounds that need no judgement.
    """

    name = "llm"

    def __init__(self, model: BaseChatModel, gate: ModelGate, rules: Analyst) -> None:
        self._model = model
        self._gate = gate
        self._rules = rules
        # One tool-calling binding per answer schema, built once: `with_structured_output` per call
        # copied the model, converted the schema and wrapped the call in a parser map and fallbacks,
        # all of it held by every stream awaiting the model.
        self._bindings: dict[type[BaseModel], Runnable[LanguageModelInput, AIMessage]] = {}

    async def route(self, request: RouteRequest, meter: ModelMeter) -> Route:
        if (sure := confident_route(request)) is not None:
            return sure
        # Each payload is compacted where it is built: only its text stays alive during the call.
        payload = compact(
            {
                "question": request.query,
                "flow": request.flow,
                "prior_turns": history_view(request.history),
                "services": list(request.services),
            }
        )
        return await self._ask(Route, ROUTE_PROMPT, payload, meter)

    async def plan(self, request: PlanRequest, meter: ModelMeter) -> Plan:
        if request.route.route == "lookup":
            return await self._plan_lookup(request, meter)
        if not asks_model_to_plan(request):
            return await self._rules.plan(request, meter)
        payload = compact(
            {
                "question": request.route.resolved_query,
                "services_named": list(request.route.services),
                "round": request.round,
                # The prompt lists the tools; a run without some of them names those (rarely any).
                **unavailable_tools(request.tool_names),
                "datasources": list(request.datasources),
                "remaining_tool_calls": request.remaining_tool_calls,
                "discovered": discovery_view(request.discovery),
                **_evidence_and_digest(request.evidence, request.digest),
            }
        )
        budget = request.remaining_tool_calls
        del request  # the prompt holds what the model needs: the digest need not live through the call
        plan = await self._ask(Plan, PLAN_PROMPT, payload, meter)
        # The model is told the budget; an overshoot is trimmed here rather than ending the run.
        return Plan(calls=plan.calls[:budget])

    async def diagnose(self, request: DiagnoseRequest, meter: ModelMeter) -> Draft:
        diagnosing = request.route.route == "complex"
        checks = verdict_checks(request) if diagnosing else {}
        payload = compact(
            {
                "question": request.route.resolved_query,
                "route": request.route.route,
                "now": request.now,
                **({"checks": checks} if diagnosing else {}),
                **_evidence_and_digest(request.evidence, request.digest),
            }
        )
        draft = await self._ask(Draft, DIAGNOSE_PROMPT, payload, meter)
        if not diagnosing:
            return draft
        # The verdict and scope rules hold whoever drafts: a draft that breaks them gives way to the
        # rule-based draft of the same evidence (no model call).
        return hold_rules(draft, await self._rules.diagnose(request, meter), checks)

    async def repair(self, request: RepairRequest, meter: ModelMeter) -> Repair:
        payload = compact(
            {
                "question": request.route.resolved_query,
                "draft": request.draft.model_dump(),
                "violations": list(request.violations)[:20],
                "may_gather": request.may_gather,
                **_evidence_and_digest(request.evidence, request.digest, REPAIR_FACTS_PER_KIND),
            }
        )
        repair = await self._ask(Repair, REPAIR_PROMPT, payload, meter)
        return repair.model_copy(update={"calls": repair.calls[: request.remaining_tool_calls]})

    async def _plan_lookup(self, request: PlanRequest, meter: ModelMeter) -> Plan:
        """The rules run a query the question's grammar names; the model translates any other."""
        planned = await self._rules.plan(request, meter)
        if planned.calls or request.round != 1:
            return planned
        plan = await self._ask(Plan, LOOKUP_PROMPT, lookup_payload(request), meter)
        return Plan(calls=lookup_calls(plan.calls, request.remaining_tool_calls))

    def _forced_call(self, schema: type[BaseModel]) -> Runnable[LanguageModelInput, AIMessage]:
        if schema not in self._bindings:
            self._bindings[schema] = self._model.bind_tools(
                [schema], tool_choice=_tool_name(schema), parallel_tool_calls=False
            )
        return self._bindings[schema]

    async def _ask(self, schema: type[M], prompt: str, payload: str, meter: ModelMeter) -> M:
        meter.charge_model_call()
        messages = [SystemMessage(prompt), HumanMessage(payload)]
        async with self._gate.slot():
            try:
                answer = await self._forced_call(schema).ainvoke(messages)
            except openai.APITimeoutError:
                raise AnalystUnavailable("timeout") from None
            except openai.APIStatusError as failure:
                log.warning("model answered HTTP %s", failure.status_code)
                raise AnalystUnavailable("http_error") from None
            except openai.APIError:
                raise AnalystUnavailable("model_error") from None
            except (ValidationError, ValueError):
                raise AnalystUnavailable("malformed_output") from None
        if answer.usage_metadata:
            meter.add_tokens(answer.usage_metadata.get("total_tokens", 0))
        return _parsed(schema, answer)


@cache
def _tool_name(schema: type[BaseModel]) -> str:
    """The function name the model is forced to call for `schema` (its title, as LangChain writes it)."""
    return str(convert_to_openai_tool(schema)["function"]["name"])


def _parsed(schema: type[M], answer: AIMessage) -> M:
    """The forced function call's arguments as `schema`; anything else is malformed output."""
    calls = answer.tool_calls
    if not calls or calls[0]["name"] != _tool_name(schema):
        raise AnalystUnavailable("malformed_output")
    try:
        return schema.model_validate(calls[0]["args"])
    except ValidationError:
        raise AnalystUnavailable("malformed_output") from None


def _evidence_and_digest(
    refs: Sequence[EvidenceRef], digest: Digest, per_kind: int = MAX_FACTS_PER_KIND
) -> dict[str, Any]:
    facts = digest_view(digest, per_kind=per_kind)
    return {"evidence": evidence_view(refs, facts), "digest": facts}


def unavailable_tools(tool_names: Sequence[str]) -> dict[str, list[str]]:
    """The prompt's planning tools this run lacks, under `unavailable_tools`; nothing when it has all."""
    given = set(tool_names)
    missing = [name for name in PLAN_TOOLS if name not in given]
    return {"unavailable_tools": missing} if missing else {}


def build_llm_analyst(config: ModelConfig, rules: Analyst) -> LlmAnalyst:
    """The analyst the composition root builds once when a model is configured, beside its `rules`."""
    gate = ModelGate(config.max_concurrent_calls, acquire_timeout_s=config.acquire_timeout_s)
    return LlmAnalyst(build_chat_model(config), gate, rules)
