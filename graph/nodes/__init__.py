"""The graph's nodes: one folder per node id, each with a thin `node.py` entry and its logic beside it."""
