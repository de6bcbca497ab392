"""semantic_guard: no secrets, internal errors, prompt text or unguarded destructive commands are released."""

from graph.nodes.semantic_guard.node import node_semantic_guard

__all__ = ["node_semantic_guard"]
