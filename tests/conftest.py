"""Shared test configuration: how tests find the real services they need.

A real backend's URL comes from a `SUPERBIZ_TEST_*` variable. On a developer machine a missing URL
skips the test with a reason; in CI (`CI=true`) it fails, so a skip can never hide a missing service.
"""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


def require_service_url(variable: str) -> str:
    """Return the URL in `variable`, or skip (locally) / fail (in CI) when it is unset."""
    url = os.environ.get(variable, "").strip()
    if url:
        return url
    message = f"{variable} is not set: the real service for this test is not configured"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)
