"""diagnose: the draft (root cause, findings, recommendations), every finding citing evidence ids."""

from graph.nodes.diagnose.node import node_diagnose

__all__ = ["node_diagnose"]
