"""planner: chooses which evidence to gather, from which tools, with which arguments, within budget."""

from graph.nodes.planner.node import node_planner

__all__ = ["node_planner"]
