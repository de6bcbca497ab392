"""Test-only servers and doubles shared by test suites."""
