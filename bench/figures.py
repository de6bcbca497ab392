"""What a benchmark item reports: named figures, each optionally judged against a target."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Comparison = Literal["<=", "<", ">="]


@dataclass(frozen=True, slots=True)
class Target:
    """`value <op> bound`, e.g. Target("<=", 1.5) for "within 1.5x"."""

    op: Comparison
    bound: float

    def met(self, value: float) -> bool:
        if math.isnan(value):
            return False
        if self.op == "<=":
            return value <= self.bound
        if self.op == "<":
            return value < self.bound
        return value >= self.bound

    def __str__(self) -> str:
        return f"{self.op} {self.bound:g}"


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured number; `target` makes it a PASS/MISS line of the table."""

    name: str
    value: float
    unit: str = ""
    target: Target | None = None

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        return "PASS" if self.target.met(self.value) else "MISS"

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "value": _finite(self.value), "unit": self.unit}
        if self.target is not None:
            out["target"] = str(self.target)
            out["verdict"] = self.verdict
        return out


@dataclass(slots=True)
class ItemResult:
    """The figures of one benchmark item plus free-form details kept only in the JSON."""

    item: str
    title: str
    figures: list[Figure] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None

    def add(self, name: str, value: float, unit: str = "", target: Target | None = None) -> None:
        self.figures.append(Figure(name, float(value), unit, target))

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["figures"] = [f.as_json() for f in self.figures]
        return data


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(0, math.ceil(pct / 100 * len(ordered)) - 1)
    return ordered[rank]


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else math.nan


def _finite(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else round(value, 4)
