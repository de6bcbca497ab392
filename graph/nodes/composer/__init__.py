"""composer: renders the typed content payload of a verified draft."""

from graph.nodes.composer.node import node_composer

__all__ = ["node_composer"]
