"""repair: bounded correction of a draft the evidence guard rejected."""

from graph.nodes.repair.node import node_repair

__all__ = ["node_repair"]
