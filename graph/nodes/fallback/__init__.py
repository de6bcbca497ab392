"""fallback: a fixed safe message plus the evidence collected; degraded, never draft text."""

from graph.nodes.fallback.node import node_fallback

__all__ = ["node_fallback"]
