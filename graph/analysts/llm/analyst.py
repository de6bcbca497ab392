"""The LLM analyst: one structured model call per step; any model failure is an AnalystUnavailable."""

from __future__ import annotations

import logging
from typing import Any, TypeVar, cast

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from graph.analysts.base import (
    AnalystUnavailable,
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
from graph.analysts.llm.model import ModelConfig, ModelGate, build_chat_model
from graph.analysts.llm.payload import compact, digest_view, evidence_view, history_view
from graph.analysts.llm.prompts import DIAGNOSE_PROMPT, PLAN_PROMPT, REPAIR_PROMPT, ROUTE_PROMPT

M = TypeVar("M", bound=BaseModel)
log = logging.getLogger(__name__)


class LlmAnalyst:
    """Analyst backed by a chat model through function-calling structured output."""

    name = "llm"

    def __init__(self, model: BaseChatModel, gate: ModelGate) -> None:
        self._model = model
        self._gate = gate

    async def route(self, request: RouteRequest, meter: ModelMeter) -> Route:
        payload = {
            "question": request.query,
            "flow": request.flow,
            "prior_turns": history_view(request.history),
            "services": list(request.services),
        }
        return await self._ask(Route, ROUTE_PROMPT, payload, meter)

    async def plan(self, request: PlanRequest, meter: ModelMeter) -> Plan:
        payload = {
            "question": request.route.resolved_query,
            "round": request.round,
            "tool_names": list(request.tool_names),
            "datasources": list(request.datasources),
            "remaining_tool_calls": request.remaining_tool_calls,
            "evidence": evidence_view(request.evidence),
            "digest": digest_view(request.digest),
        }
        plan = await self._ask(Plan, PLAN_PROMPT, payload, meter)
        # The model is told the budget; an overshoot is trimmed here rather than ending the run.
        return Plan(calls=plan.calls[: request.remaining_tool_calls])

    async def diagnose(self, request: DiagnoseRequest, meter: ModelMeter) -> Draft:
        payload = {
            "question": request.route.resolved_query,
            "route": request.route.route,
            "now": request.now,
            "evidence": evidence_view(request.evidence),
            "digest": digest_view(request.digest),
        }
        return await self._ask(Draft, DIAGNOSE_PROMPT, payload, meter)

    async def repair(self, request: RepairRequest, meter: ModelMeter) -> Repair:
        payload = {
            "question": request.route.resolved_query,
            "draft": request.draft.model_dump(),
            "violations": list(request.violations)[:20],
            "may_gather": request.may_gather,
            "evidence": evidence_view(request.evidence),
            "digest": digest_view(request.digest),
        }
        repair = await self._ask(Repair, REPAIR_PROMPT, payload, meter)
        return repair.model_copy(update={"calls": repair.calls[: request.remaining_tool_calls]})

    async def _ask(self, schema: type[M], prompt: str, payload: dict[str, Any], meter: ModelMeter) -> M:
        meter.charge_model_call()
        runnable = self._model.with_structured_output(schema, method="function_calling", include_raw=True)
        messages = [SystemMessage(prompt), HumanMessage(compact(payload))]
        async with self._gate.slot():
            try:
                out = cast(dict[str, Any], await runnable.ainvoke(messages))
            except openai.APITimeoutError:
                raise AnalystUnavailable("timeout") from None
            except openai.APIStatusError as failure:
                log.warning("model answered HTTP %s", failure.status_code)
                raise AnalystUnavailable("http_error") from None
            except openai.APIError:
                raise AnalystUnavailable("model_error") from None
            except (ValidationError, ValueError):
                raise AnalystUnavailable("malformed_output") from None
        raw = out.get("raw")
        if isinstance(raw, AIMessage) and raw.usage_metadata:
            meter.add_tokens(raw.usage_metadata.get("total_tokens", 0))
        parsed = out.get("parsed")
        if out.get("parsing_error") is not None or not isinstance(parsed, schema):
            raise AnalystUnavailable("malformed_output")
        return parsed


def build_llm_analyst(config: ModelConfig) -> LlmAnalyst:
    """The analyst the composition root builds once when a model is configured."""
    gate = ModelGate(config.max_concurrent_calls, acquire_timeout_s=config.acquire_timeout_s)
    return LlmAnalyst(build_chat_model(config), gate)
