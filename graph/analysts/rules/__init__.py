"""The rule-based analyst: deterministic route, plan, diagnose and repair over the digest."""

from graph.analysts.rules.analyst import RuleAnalyst

__all__ = ["RuleAnalyst"]
