"""Analysts: one protocol (route, plan, diagnose, repair), a rule-based and an LLM implementation."""
