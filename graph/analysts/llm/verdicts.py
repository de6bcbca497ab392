"""The verdict and scope rules a model's draft keeps: the same ones the rule-based analyst follows.

The model is told the checks (`checks` in its payload); what it answers is then held to them. A draft
that calls a system healthy while an unmuted alert fires, or while key sources could not answer, or
that names a cause on a healthy system, or blames another system than the one the question is about,
is replaced by the rule-based draft of the same evidence, which follows them by construction.
"""

from __future__ import annotations

from typing import Any

from graph.analysts.base import DiagnoseRequest, Draft
from graph.analysts.rules.diagnose import question_scope
from graph.analysts.rules.verdict import missing_sources, unexplained_alerts
from tools.prometheus.discovery import DEFAULT_STACK, MonitoringStack

MAX_LISTED = 6


def verdict_checks(request: DiagnoseRequest, stack: MonitoringStack = DEFAULT_STACK) -> dict[str, Any]:
    """What the model's verdict must respect: unmuted firing alerts, missing key sources, the scope."""
    firing = unexplained_alerts(request.digest)
    checks = {
        "firing": [f"{g.alertname} on {g.service or 'no service'}" for g in firing][:MAX_LISTED],
        "missing": missing_sources(request.evidence),
        "scope": question_scope(request, stack),
    }
    # Only what applies: an empty check costs the model's tokens and says nothing.
    return {key: value for key, value in checks.items() if value}


def hold_rules(model: Draft, rules: Draft, checks: dict[str, Any]) -> Draft:
    """`model` when it keeps the rules, else the rule-based draft `rules` of the same evidence."""
    if model.kind != "diagnosis":
        return model
    if model.verdict == "healthy" and rules.verdict != "healthy":
        return rules  # a firing alert, trouble the rules see, or missing sources: never healthy
    if model.verdict == "incident" and model.root_cause is not None and rules.verdict == "healthy":
        return rules  # a cause named on a system whose key sources answered and show nothing abnormal
    if model.root_cause is not None and rules.verdict == "inconclusive":
        return rules  # a cause named where the evidence cannot say (a system nothing names, sources down)
    target = checks.get("scope")
    if target and model.root_cause is not None:
        allowed = {str(target).lower()}
        if rules.root_cause is not None:
            allowed.add(rules.root_cause.service.lower())
        if model.root_cause.service.lower() not in allowed:
            return rules  # another system's cause substituted for the one the question asks about
    return model
