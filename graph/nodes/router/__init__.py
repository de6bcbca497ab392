"""router: decides between the short answer path and a full diagnosis."""

from graph.nodes.router.node import node_router

__all__ = ["node_router"]
