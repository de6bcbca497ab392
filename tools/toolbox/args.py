"""Validated arguments of every tool: strict (extra fields refused) and bounded in length.

Bounds that depend on settings (PromQL length, window, step, SQL length) are checked by the tool
itself against `ToolLimits`, so these models stay static and usable as LangChain schemas.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Name = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:\-/]+$")]
Window = Annotated[int, Field(ge=1, le=7 * 24 * 60, description="minutes back from now")]
MinutesAgo = Annotated[int, Field(ge=0, le=7 * 24 * 60, description="minutes before now")]
Signal = Literal["error_rate", "latency_p99", "saturation", "cpu", "memory", "connections"]
Level = Literal["debug", "info", "warn", "warning", "error", "fatal", "critical"]


class ToolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class ListAlertsArgs(ToolArgs):
    service: Name | None = Field(default=None, description="only alerts with this service label")


class ListMetricsArgs(ToolArgs):
    service: Name | None = Field(default=None, description="only series with this service label")
    window_minutes: Window | None = None


class QueryMetricArgs(ToolArgs):
    service: Name = Field(description="the service label value")
    signal: Signal = Field(description="which common signal to query")
    window_minutes: Window | None = None


class QueryPromqlArgs(ToolArgs):
    promql: str = Field(min_length=1, max_length=10_000, description="a PromQL expression")
    window_minutes: Window | None = None
    step_seconds: Annotated[int, Field(ge=1, le=86_400)] | None = None


class QueryPromqlInstantArgs(ToolArgs):
    promql: str = Field(min_length=1, max_length=10_000, description="a PromQL expression")
    at_minutes_ago: MinutesAgo | None = None


class ListLogStreamsArgs(ToolArgs):
    label: Name = Field(default="service", description="the stream label whose values to list")
    window_minutes: Window | None = None


class QueryLogsArgs(ToolArgs):
    service: Name | None = None
    contains: str | None = Field(default=None, min_length=1, max_length=200)
    level: Level | None = None
    native_query: str | None = Field(
        default=None,
        min_length=1,
        max_length=2_000,
        description="a query in the log backend's own language (LogQL on Loki), instead of the filters",
    )
    window_minutes: Window | None = None
    limit: Annotated[int, Field(ge=1, le=5_000)] | None = None


class ListTablesArgs(ToolArgs):
    datasource: Name


class QueryMysqlArgs(ToolArgs):
    datasource: Name
    statement: str = Field(min_length=1, max_length=20_000, description="one read-only statement")


class ListRunbooksArgs(ToolArgs):
    pass


class SearchRunbooksArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=500)
    limit: Annotated[int, Field(ge=1, le=20)] = 5


class SearchCasesArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=500)
    limit: Annotated[int, Field(ge=1, le=20)] = 5
