"""Builds the evaluation's shared parts from settings: the analyst pair, tool bounds and budgets."""

from __future__ import annotations

from dataclasses import replace

from api.evaluation.harness import EvalSetup
from api.settings import Settings
from graph.analysts.rules import RuleAnalyst
from graph.context import GraphBudgets
from tools.limits import ToolLimits


class AnalystUnconfigured(Exception):
    """`--analyst llm` was asked for but no model is configured."""


def build_setup(settings: Settings, analyst: str) -> EvalSetup:
    """Rule-based analyst by default; the LLM analyst (degrading to rules) when asked and configured."""
    rules = RuleAnalyst()
    chat = settings.chat
    setup = EvalSetup(
        analyst=rules,
        rules=rules,
        analyst_name="rules",
        limits=ToolLimits.from_mapping(settings.backends.model_dump(exclude={"sql_datasources"})),
        budgets=GraphBudgets(
            max_model_calls=chat.max_model_calls,
            max_tool_calls=chat.max_tool_calls,
            max_tokens=chat.max_tokens,
            max_repairs=chat.max_repairs,
            deadline_s=chat.run_deadline_s,
        ),
        node_timeout_s=chat.node_timeout_s,
        recursion_limit=chat.recursion_limit,
    )
    if analyst == "rules":
        return setup
    model = settings.model
    if not model.configured or model.base_url is None or model.name is None:
        raise AnalystUnconfigured("--analyst llm needs SUPERBIZ_MODEL__BASE_URL and SUPERBIZ_MODEL__NAME")
    from graph.analysts.llm import ModelConfig, build_llm_analyst

    config = ModelConfig(
        base_url=model.base_url,
        model=model.name,
        api_key=model.api_key.get_secret_value() if model.api_key else "unused",
        timeout_s=model.timeout_s,
        max_retries=model.max_retries,
        temperature=model.temperature,
        max_output_tokens=model.max_output_tokens,
        max_concurrent_calls=model.max_concurrent_calls,
    )
    return replace(setup, analyst=build_llm_analyst(config), analyst_name="llm")
