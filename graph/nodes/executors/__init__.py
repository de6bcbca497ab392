"""executors: gather evidence for one lane of the plan; three lanes run concurrently."""

from graph.nodes.executors.node import node_executors

__all__ = ["node_executors"]
