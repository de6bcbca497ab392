"""fallback: a fixed safe message plus the evidence collected; degraded, never draft text."""

from graph.nodes.fallback.node import deadline_fallback, node_fallback

__all__ = ["deadline_fallback", "node_fallback"]
