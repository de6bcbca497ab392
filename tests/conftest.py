"""Shared test configuration: how tests find the real services they need.

A real backend's URL comes from a `SUPERBIZ_TEST_*` variable. On a developer machine a missing URL
skips the test with a reason; in CI (`CI=true`) it fails, so a skip can never hide a missing service.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from persistence.db import upgrade_head
from tests.support.postgres import fresh_database

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


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def app_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The service's own database, once per backend: a SQLite file (migrated by the service at
    start-up) and a fresh migrated PostgreSQL database on SUPERBIZ_TEST_PG_URL, dropped after."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'app.db'}"
        return
    with fresh_database(require_service_url("SUPERBIZ_TEST_PG_URL"), "superbiz_app") as url:
        upgrade_head(url)
        yield url
