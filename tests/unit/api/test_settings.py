"""Settings: positive validated defaults, and bad values named by their variable."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from api.cli import load_settings
from api.settings import Settings


def _limits(model: BaseModel) -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    for name, value in model:
        if isinstance(value, BaseModel):
            found += [(f"{name}.{inner}", v) for inner, v in _limits(value)]
        elif isinstance(value, int | float) and not isinstance(value, bool):
            found.append((name, value))
    return found


def test_every_numeric_limit_defaults_positive() -> None:
    limits = _limits(Settings())
    assert len(limits) > 40
    # max_retries and temperature may be zero by design; every other limit is a positive bound.
    assert [n for n, v in limits if v <= 0 and n not in {"model.max_retries", "model.temperature"}] == []  # type: ignore[operator]


def test_nested_values_come_from_double_underscore_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SUPERBIZ_CHAT__MAX_WORKERS", "3")
    monkeypatch.setenv("SUPERBIZ_MODEL__API_KEY", "sk-test-secret")
    settings = Settings()
    assert settings.chat.max_workers == 3
    assert "sk-test-secret" not in repr(settings)


def test_bad_value_stops_start_up_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SUPERBIZ_CHAT__MAX_WORKERS", "0")
    with pytest.raises(SystemExit) as stopped:
        load_settings()
    assert stopped.value.code == 2
    assert "SUPERBIZ_CHAT__MAX_WORKERS" in capsys.readouterr().err
