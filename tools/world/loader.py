"""Load and validate a world directory; every file is optional and read under a size cap.

Errors name the file (and line or item) that is wrong, never continue with half-read data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import TypeAdapter, ValidationError

from tools.world.alert_history import alert_series
from tools.world.models import (
    Scenario,
    WorldAlert,
    WorldInfo,
    WorldLogLine,
    WorldMetricMetadata,
    WorldSeries,
)

_T = TypeVar("_T")

_ALERTS = TypeAdapter(list[WorldAlert])
_SERIES = TypeAdapter(list[WorldSeries])
_SCENARIOS = TypeAdapter(list[Scenario])
_METADATA = TypeAdapter(dict[str, WorldMetricMetadata])


class WorldError(ValueError):
    """A world directory holds data that cannot be served; the message names the file."""


@dataclass(frozen=True, slots=True)
class WorldLimits:
    """Caps on what one world may hold, so a hostile or broken world cannot exhaust memory."""

    max_yaml_bytes: int = 1_048_576
    max_data_bytes: int = 64 * 1_048_576
    max_log_lines: int = 200_000
    max_series: int = 20_000
    max_sql_scripts: int = 32
    max_docs: int = 500


@dataclass(frozen=True, slots=True)
class World:
    """A world at its frozen instant `now` (tz-aware UTC); absent files give empty collections."""

    root: Path
    name: str
    description: str
    now: datetime
    alerts: Sequence[WorldAlert] = ()
    series: Sequence[WorldSeries] = ()
    logs: Sequence[WorldLogLine] = ()  # oldest first
    scenarios: Sequence[Scenario] = ()
    sql_scripts: Mapping[str, Path] = field(default_factory=dict)  # datasource name -> sql/NAME.sql
    docs: Sequence[Path] = ()  # docs/*.md, sorted
    metadata: Mapping[str, WorldMetricMetadata] = field(default_factory=dict)  # metadata.json

    @property
    def docs_dir(self) -> Path | None:
        """The runbook directory, when the world has one."""
        path = self.root / "docs"
        return path if path.is_dir() else None


def load_world(path: str | Path, *, limits: WorldLimits | None = None) -> World:
    """Read and validate the world in directory `path`."""
    limits = limits or WorldLimits()
    root = Path(path)
    if not root.is_dir():
        raise WorldError(f"{root}: not a directory")
    info = _load_info(root / "world.yaml", limits)
    alerts = _validate(_ALERTS, _read_json(root / "alerts.json", limits), "alerts.json")
    series = _validate(_SERIES, _read_json(root / "metrics.json", limits), "metrics.json")
    if len(series) > limits.max_series:
        raise WorldError(f"metrics.json: more than {limits.max_series} series")
    logs = sorted(_load_logs(root / "logs.jsonl", limits), key=lambda line: line.ts)
    scenarios = _validate(_SCENARIOS, _read_yaml(root / "scenarios.yaml", limits), "scenarios.yaml")
    metadata = _validate(_METADATA, _read_json(root / "metadata.json", limits) or {}, "metadata.json")
    now = info.now or _latest_instant(alerts, series, logs)
    return World(
        root=root,
        name=info.name or root.name,
        description=info.description,
        now=now,
        alerts=tuple(alerts),
        series=(*series, *alert_series(alerts, series, now, max_series=limits.max_series - len(series))),
        logs=tuple(logs),
        scenarios=tuple(scenarios),
        sql_scripts=_listing(root / "sql", "*.sql", limits.max_sql_scripts),
        docs=tuple(_listing(root / "docs", "*.md", limits.max_docs).values()),
        metadata=metadata,
    )


def _load_info(path: Path, limits: WorldLimits) -> WorldInfo:
    raw = _read_yaml(path, limits)
    if raw is None:
        return WorldInfo()
    return _validate(TypeAdapter(WorldInfo), raw, path.name)


def _load_logs(path: Path, limits: WorldLimits) -> list[WorldLogLine]:
    text = _read_text(path, limits.max_data_bytes)
    if text is None:
        return []
    lines: list[WorldLogLine] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(lines) >= limits.max_log_lines:
            raise WorldError(f"logs.jsonl: more than {limits.max_log_lines} lines")
        try:
            lines.append(WorldLogLine.model_validate_json(line))
        except ValidationError as error:
            raise WorldError(f"logs.jsonl line {number}: {_describe(error)}") from error
    return lines


def _read_json(path: Path, limits: WorldLimits) -> Any:
    text = _read_text(path, limits.max_data_bytes)
    if text is None:
        return []
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        problem = f"invalid JSON at line {error.lineno}: {error.msg}"
        raise WorldError(f"{path.name}: {problem}") from error


def _read_yaml(path: Path, limits: WorldLimits) -> Any:
    text = _read_text(path, limits.max_yaml_bytes)
    if text is None:
        return [] if path.name == "scenarios.yaml" else None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise WorldError(f"{path.name}: invalid YAML ({type(error).__name__})") from error


def _read_text(path: Path, max_bytes: int) -> str | None:
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        # Read one byte past the cap: the file may grow between stat and read.
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise WorldError(f"{path.name}: larger than the {max_bytes}-byte cap")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WorldError(f"{path.name}: not UTF-8 text") from error


def _validate(adapter: TypeAdapter[_T], raw: Any, file: str) -> _T:
    if raw is None:
        raw = []
    try:
        return adapter.validate_python(raw)
    except ValidationError as error:
        raise WorldError(f"{file}: {_describe(error)}") from error


def _describe(error: ValidationError) -> str:
    problems = [
        f"{'.'.join(str(part) for part in item['loc']) or '(root)'}: {item['msg']}"
        for item in error.errors()[:3]
    ]
    more = error.error_count() - len(problems)
    return "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")


def _listing(directory: Path, pattern: str, cap: int) -> dict[str, Path]:
    if not directory.is_dir():
        return {}
    paths = sorted(path for path in directory.glob(pattern) if path.is_file())
    if len(paths) > cap:
        raise WorldError(f"{directory.name}/: more than {cap} {pattern} files")
    return {path.stem: path for path in paths}


def _latest_instant(
    alerts: Sequence[WorldAlert], series: Sequence[WorldSeries], logs: Sequence[WorldLogLine]
) -> datetime:
    """A world without world.yaml is served at its last recorded instant."""
    instants = [alert.starts_at for alert in alerts if alert.starts_at is not None]
    instants += [datetime.fromtimestamp(one.samples[-1][0], UTC) for one in series if one.samples]
    instants += [line.ts for line in logs[-1:]]
    return max(instants, default=datetime(1970, 1, 1, tzinfo=UTC))
