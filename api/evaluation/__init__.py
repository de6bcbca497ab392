"""The evaluation harness: run every scenario of a folder of worlds, score the answers, diff two results."""
