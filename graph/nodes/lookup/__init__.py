"""lookup: the answer to a data question, tables of the rows its query returned (both guards follow)."""

from graph.nodes.lookup.node import node_lookup

__all__ = ["node_lookup"]
