"""Builds the evaluation's shared parts from settings: the analyst pair, tool bounds and budgets."""

from __future__ import annotations

from dataclasses import replace

from api.composition import tool_limits
from api.engine import graph_budgets, model_config
from api.evaluation.harness import EvalSetup
from api.settings import Settings
from graph.analysts.llm import build_llm_analyst
from graph.analysts.rules import RuleAnalyst


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
        limits=tool_limits(settings),
        budgets=graph_budgets(settings),
        node_timeout_s=chat.node_timeout_s,
        recursion_limit=chat.recursion_limit,
    )
    if analyst == "rules":
        return setup
    config = model_config(settings)
    if config is None:
        raise AnalystUnconfigured("--analyst llm needs SUPERBIZ_MODEL__BASE_URL and SUPERBIZ_MODEL__NAME")
    return replace(setup, analyst=build_llm_analyst(config), analyst_name="llm")
