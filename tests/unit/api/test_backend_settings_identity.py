"""The identity labels and the raw HTTP cap are settings of their own, read from the environment."""

from __future__ import annotations

import json

import httpx
import pytest
from pydantic import ValidationError

from api.backends import build_sources
from api.composition import tool_limits
from api.settings import Settings
from tools.base import SourceError

# ~300 KB of alerts: above the old derived cap (4 x 65536 = 262144), below the raw cap's default.
_BIG = json.dumps(
    [
        {"labels": {"alertname": f"A{i}", "instance": f"h{i}:9100"},
         "annotations": {"description": "x" * 3_000},
         "status": {"state": "active", "silencedBy": [], "inhibitedBy": []}}
        for i in range(100)
    ]
).encode()  # fmt: skip


def test_identity_labels_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_BACKENDS__IDENTITY_LABELS", '["app", "job", "instance"]')
    monkeypatch.setenv("SUPERBIZ_BACKENDS__IDENTITY_RESOURCE_LABELS", '["queue"]')
    identity = tool_limits(Settings()).identity
    assert identity.labels == ("app", "job", "instance")
    assert identity.resources == ("queue",)


def test_an_identity_label_that_is_no_label_name_stops_start_up() -> None:
    with pytest.raises(ValidationError, match="identity_labels"):
        Settings(backends={"identity_labels": ['job"} or vector(1)']})
    with pytest.raises(ValidationError, match="identity_labels"):
        Settings(backends={"identity_labels": []})


async def _alerts(settings: Settings) -> int:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=_BIG))
    async with httpx.AsyncClient(transport=transport) as http:
        sources = build_sources(settings, http, cases=None)
        assert sources.alerts is not None
        return len(await sources.alerts.active_alerts(limit=500))


def _settings(**backends: int) -> Settings:
    return Settings(alertmanager_url="http://am.test", backends=backends)


async def test_raw_cap_is_its_own_setting_not_derived_from_max_result_bytes() -> None:
    assert await _alerts(_settings()) == 100  # the default raw cap (1 MiB) reads it whole
    with pytest.raises(SourceError):
        await _alerts(_settings(max_raw_response_bytes=100_000, max_result_bytes=10**7))
    # A small evidence cap no longer shrinks the raw cap.
    assert await _alerts(_settings(max_result_bytes=1_000)) == 100
