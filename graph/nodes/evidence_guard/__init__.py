"""evidence_guard: every cited id exists and succeeded; every claim is in its cited evidence."""

from graph.nodes.evidence_guard.node import node_evidence_guard

__all__ = ["node_evidence_guard"]
