"""The diagnoser: the one compiled graph with its analysts and toolbox, started per run.

Built once by the composition root (and by the evaluation harness), shared by every chat and AIOps
run; each run gets a fresh evidence store and meter.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from api.settings import Settings
from graph.analysts.base import Analyst
from graph.analysts.llm.analyst import build_llm_analyst
from graph.analysts.llm.model import ModelConfig
from graph.analysts.llm.prompts import PROMPT_LINES
from graph.analysts.rules.analyst import RuleAnalyst
from graph.build import build_graph
from graph.context import GraphBudgets
from graph.recorder import RunObserver
from graph.runner import DiagnosisRunner, GraphRun, RunParts, RunRequest
from tools.digest import DigestLimits, build_digest
from tools.evidence_store import RunEvidence
from tools.prometheus.discovery import MonitoringStack
from tools.toolbox import Toolbox


@dataclass(frozen=True, slots=True)
class Diagnoser:
    runner: DiagnosisRunner
    analyst: Analyst
    rules: Analyst
    toolbox: Toolbox
    budgets: GraphBudgets
    evidence_budget_bytes: int

    def start(self, request: RunRequest, *, observer: RunObserver) -> GraphRun:
        """One run with its own evidence store, scoped to the run's principal (awaited by the caller)."""
        parts = RunParts(
            analyst=self.analyst,
            rules=self.rules,
            forbidden_lines=PROMPT_LINES,  # the model's instructions, checked whichever analyst drafts
            toolbox=self.toolbox,
            evidence=RunEvidence(budget_bytes=self.evidence_budget_bytes, principal=request.principal),
            # Facts name systems by the configured identity labels, as the tools do.
            digest=partial(build_digest, limits=DigestLimits(identity=self.toolbox.limits.identity)),
            budgets=self.budgets,
        )
        return self.runner.start(request, parts, observer)


def model_config(settings: Settings) -> ModelConfig | None:
    """The model boundary's configuration; None runs the rule-based analyst everywhere."""
    model = settings.model
    if not (model.base_url and model.name):
        return None
    return ModelConfig(
        base_url=model.base_url,
        model=model.name,
        api_key=model.api_key.get_secret_value() if model.api_key else "unused",
        timeout_s=model.timeout_s,
        max_retries=model.max_retries,
        temperature=model.temperature,
        max_output_tokens=model.max_output_tokens,
        max_concurrent_calls=model.max_concurrent_calls,
    )


def graph_budgets(settings: Settings) -> GraphBudgets:
    """Per-run budgets from the chat limits block."""
    limits = settings.chat
    return GraphBudgets(
        max_model_calls=limits.max_model_calls,
        max_tool_calls=limits.max_tool_calls,
        max_tokens=limits.max_tokens,
        max_repairs=limits.max_repairs,
        deadline_s=limits.run_deadline_s,
    )


def build_diagnoser(settings: Settings, toolbox: Toolbox, *, use_model: bool = True) -> Diagnoser:
    """Compile the graph once and choose the analyst (LLM when configured, else rule-based)."""
    limits = settings.chat
    rules = RuleAnalyst(MonitoringStack(tuple(settings.backends.monitoring_jobs)))
    config = model_config(settings) if use_model else None
    analyst: Analyst = build_llm_analyst(config, rules) if config is not None else rules
    runner = DiagnosisRunner(
        build_graph(node_timeout_s=limits.node_timeout_s),
        recursion_limit=limits.recursion_limit,
        max_trace_bytes=limits.max_trace_bytes,
    )
    return Diagnoser(
        runner=runner,
        analyst=analyst,
        rules=rules,
        toolbox=toolbox,
        budgets=graph_budgets(settings),
        evidence_budget_bytes=settings.backends.run_evidence_budget_bytes,
    )
