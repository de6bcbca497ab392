"""Settings: positive validated defaults, and bad values named by their variable."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import pytest
from pydantic import BaseModel

from api.cli import load_settings
from api.composition import tool_limits
from api.diagnoser import graph_budgets, model_config
from api.settings import BackendSettings, Settings
from graph.analysts.llm.model import ModelConfig
from graph.context import GraphBudgets
from tools.limits import ToolLimits


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


def test_backend_settings_take_every_tool_limit_default_from_tool_limits() -> None:
    # One definition per default: a literal re-typed in BackendSettings that drifts from ToolLimits,
    # or a limit added to ToolLimits that settings cannot set, fails here.
    backends = BackendSettings()
    for limit in dataclasses.fields(ToolLimits):
        assert limit.name in BackendSettings.model_fields, limit.name
        assert getattr(backends, limit.name) == getattr(ToolLimits(), limit.name), limit.name
    assert tool_limits(Settings()) == ToolLimits()


def test_chat_limits_take_every_budget_default_from_graph_budgets() -> None:
    assert graph_budgets(Settings()) == GraphBudgets()


def test_every_tool_limit_and_budget_is_set_from_settings() -> None:
    # Each value doubled: the mapping into the dataclasses forgets no field.
    tools = {f.name: _doubled(getattr(ToolLimits(), f.name)) for f in dataclasses.fields(ToolLimits)}
    budgets = {f.name: _doubled(getattr(GraphBudgets(), f.name)) for f in dataclasses.fields(GraphBudgets)}
    chat = {("run_deadline_s" if name == "deadline_s" else name): value for name, value in budgets.items()}
    settings = Settings(backends=tools, chat=chat)
    assert dataclasses.asdict(tool_limits(settings)) == tools
    assert dataclasses.asdict(graph_budgets(settings)) == budgets


def _doubled(value: object) -> object:
    if isinstance(value, int | float):
        return value * 2
    if isinstance(value, tuple):  # a label list: another order is another setting
        return value[::-1]
    assert isinstance(value, Mapping)
    return {key: f"{text} * 2" for key, text in value.items()}


def test_model_config_defaults_match_the_model_settings() -> None:
    # ModelConfig sits beside the LangChain client (a 4 s import that settings must not pay), so its
    # defaults are mirrored, not shared: this guard keeps the mirror true.
    settings = Settings(model={"base_url": "http://model.test/v1", "name": "m"})
    assert model_config(settings) == ModelConfig(base_url="http://model.test/v1", model="m")
