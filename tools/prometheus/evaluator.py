"""The small PromQL subset the world fixture evaluates: what discovery's typed reads are made of.

`selector`, `rate|increase(selector[range])`, `sum|avg|min|max|count [by (labels)] (expr)`,
`histogram_quantile(q, expr)`, `topk(k, expr)` (how a read narrowed by no matcher stays bounded) and a
comparison with a number (`expr == 0`, `expr > bool 0.5`: what an engineer pastes to list what is down).
Anything else raises SelectorError (the fixture answers REJECTED).
Functions, aggregations and `bool` comparisons drop the metric name, as Prometheus does; a filtering
comparison keeps the series as they are.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from tools.prometheus.selector import (
    LabelMatcher,
    Selector,
    SelectorError,
    parse_matcher_block,
    parse_selector,
)

Labels = tuple[tuple[str, str], ...]
# One evaluated vector per series: its name, labels and the points it has.
Points = dict[tuple[str, Labels], list[tuple[float, float]]]
SeriesData = Sequence[tuple[str, Mapping[str, str], Sequence[tuple[float, float]]]]
# The lookback rule of a plain selector: (samples, times) -> points (a third, defaulted argument
# such as the lookback window may follow).
InstantAt = Callable[[Sequence[tuple[float, float]], list[float]], list[tuple[float, float]]]

# Metric names may hold colons (recording rules: `job:http_requests:rate5m`, vendor exports).
_WORD = re.compile(r"\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*")
_NUMBER = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*")
_COMPARISON = re.compile(
    r"\s*(==|!=|>=|<=|>|<)\s*(bool\b)?\s*(-?(?:[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|[Nn]a[Nn]|[+-]?[Ii]nf))\s*"
)
_COMPARE: Mapping[str, Callable[[float, float], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
}
_DURATION = re.compile(r"\[\s*(\d+)([smhd])\s*\]")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_AGGREGATIONS: Mapping[str, Callable[[list[float]], float]] = {
    "sum": sum,
    "avg": lambda values: sum(values) / len(values),
    "min": min,
    "max": max,
    "count": lambda values: float(len(values)),
}

_PARAMETRIC = ("histogram_quantile", "topk")  # functions whose first argument is a number
_FUNCTIONS = ("rate", "increase", *_PARAMETRIC)


@dataclass(frozen=True, slots=True)
class _Select:
    selector: Selector
    range_s: float = 0.0


@dataclass(frozen=True, slots=True)
class _Call:
    name: str  # rate | increase | histogram_quantile | topk | an aggregation
    arg: _Node
    by: tuple[str, ...] = ()
    quantile: float = 0.0  # histogram_quantile's q, or topk's k


@dataclass(frozen=True, slots=True)
class _Compare:
    arg: _Node
    op: str  # == != > < >= <=
    value: float
    as_bool: bool = False  # `bool`: 1 or 0 for every point instead of dropping the false ones


_Node = _Select | _Call | _Compare


def parse(text: str) -> _Node:
    """Parse the supported subset; raise SelectorError for anything else."""
    node, pos = _expr(text, 0)
    if text[pos:].strip():
        raise SelectorError(f"unexpected input at offset {pos}")
    return node


def evaluate(node: _Node, series: SeriesData, times: list[float], instant: InstantAt) -> Points:
    """The expression at each of `times` over `series`; `instant` is the lookback rule of selectors."""
    if isinstance(node, _Select):
        out: Points = {}
        for metric, labels, samples in series:
            if not node.selector.matches(metric, labels):
                continue
            key = (metric, tuple(sorted(labels.items())))
            points = _ranged(samples, times, node.range_s) if node.range_s else instant(samples, times)
            if points:
                out[key] = points
        return out
    inner = evaluate(node.arg, series, times, instant)
    if isinstance(node, _Compare):
        return _compared(node, inner)
    if node.name in ("rate", "increase"):
        return {("", labels): points for (_, labels), points in inner.items()}
    if node.name == "histogram_quantile":
        return _quantile(node.quantile, inner)
    if node.name == "topk":
        return _topk(int(node.quantile), inner)
    return _aggregate(_AGGREGATIONS[node.name], node.by, inner)


def _expr(text: str, pos: int) -> tuple[_Node, int]:
    node, pos = _operand(text, pos)
    while (comparison := _COMPARISON.match(text, pos)) is not None:
        op, as_bool, number = comparison.groups()
        node, pos = _Compare(node, op, float(number), as_bool is not None), comparison.end()
    return node, pos


def _operand(text: str, pos: int) -> tuple[_Node, int]:
    word = _WORD.match(text, pos)
    name = word.group(1) if word else ""
    after = word.end() if word else pos
    if name in _AGGREGATIONS or name in _FUNCTIONS:
        return _call(text, name, after)
    end = _selector_end(text, pos)
    selector = parse_selector(text[pos:end])
    duration = _DURATION.match(text, end)
    if duration is None:
        return _Select(selector), end
    seconds = int(duration.group(1)) * _UNITS[duration.group(2)]
    return _Select(selector, float(seconds)), duration.end()


def _call(text: str, name: str, pos: int) -> tuple[_Node, int]:
    by: tuple[str, ...] = ()
    if name in _AGGREGATIONS and (clause := _WORD.match(text, pos)) and clause.group(1) == "by":
        by, pos = _label_list(text, clause.end())
    pos = _expect(text, pos, "(")
    quantile = 0.0
    if name in _PARAMETRIC:
        number = _NUMBER.match(text, pos)
        if number is None:
            raise SelectorError(f"{name} needs a numeric parameter")
        quantile, pos = float(number.group(1)), _expect(text, number.end(), ",")
    arg, pos = _expr(text, pos)
    if name in ("rate", "increase") and not (isinstance(arg, _Select) and arg.range_s):
        raise SelectorError(f"{name} needs a range selector")
    return _Call(name, arg, by, quantile), _expect(text, pos, ")")


def _compared(node: _Compare, inner: Points) -> Points:
    """A comparison with a number: the points where it holds (series keep their name), or with
    `bool` every point as 1 or 0 (the name dropped). NaN compares false, as in Prometheus."""
    holds = _COMPARE[node.op]
    out: Points = {}
    for (name, labels), points in inner.items():
        if node.as_bool:
            out[("", labels)] = [(t, 1.0 if holds(v, node.value) else 0.0) for t, v in points]
        elif kept := [(t, v) for t, v in points if holds(v, node.value)]:
            out[(name, labels)] = kept
    return out


def _label_list(text: str, pos: int) -> tuple[tuple[str, ...], int]:
    pos = _expect(text, pos, "(")
    end = text.find(")", pos)
    if end < 0:
        raise SelectorError("unclosed label list")
    labels = tuple(part.strip() for part in text[pos:end].split(",") if part.strip())
    return labels, end + 1


def _selector_end(text: str, pos: int) -> int:
    """Where the selector starting at `pos` ends: after its name and its `{...}` block."""
    word = _WORD.match(text, pos)
    end = word.end() if word else pos
    if text[end : end + 1] == "{":
        _block: list[LabelMatcher]
        _block, end = parse_matcher_block(text, end)
    return end


def _expect(text: str, pos: int, char: str) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if text[pos : pos + 1] != char:
        raise SelectorError(f"expected {char!r} at offset {pos}")
    return pos + 1


def _ranged(
    samples: Sequence[tuple[float, float]], times: list[float], range_s: float
) -> list[tuple[float, float]]:
    """Per-second increase over (t - range, t], counter resets counted from zero."""
    points: list[tuple[float, float]] = []
    for t in times:
        inside = [(ts, v) for ts, v in samples if t - range_s < ts <= t]
        if len(inside) < 2:
            continue
        increase = sum(b - a if b >= a else b for (_, a), (_, b) in pairwise(inside))
        points.append((t, increase / (inside[-1][0] - inside[0][0])))
    return points


def _aggregate(reduce: Callable[[list[float]], float], by: Sequence[str], inner: Points) -> Points:
    groups: dict[Labels, dict[float, list[float]]] = {}
    for (_, labels), points in inner.items():
        key = tuple((k, v) for k, v in labels if k in by)
        for t, value in points:
            groups.setdefault(key, {}).setdefault(t, []).append(value)
    return {
        ("", key): [(t, reduce(values)) for t, values in sorted(at.items())] for key, at in groups.items()
    }


def _topk(k: int, inner: Points) -> Points:
    """At each time, the k series of highest value; as in Prometheus, they keep name and labels."""
    at: dict[float, list[tuple[float, tuple[str, Labels]]]] = {}
    for key, points in inner.items():
        for t, value in points:
            at.setdefault(t, []).append((value, key))
    out: Points = {}
    for t, ranked in sorted(at.items()):
        ranked.sort(key=lambda pair: -pair[0] if not math.isnan(pair[0]) else math.inf)
        for value, key in ranked[:k]:
            out.setdefault(key, []).append((t, value))
    return out


def _quantile(q: float, inner: Points) -> Points:
    buckets: dict[Labels, dict[float, list[tuple[float, float]]]] = {}
    for (_, labels), points in inner.items():
        le = dict(labels).get("le")
        if le is None:
            continue
        key = tuple((k, v) for k, v in labels if k != "le")
        for t, value in points:
            buckets.setdefault(key, {}).setdefault(t, []).append((float(le), value))
    out: Points = {}
    for key, at in buckets.items():
        out[("", key)] = [(t, _bucket_quantile(q, sorted(pairs))) for t, pairs in sorted(at.items())]
    return out


def _bucket_quantile(q: float, buckets: list[tuple[float, float]]) -> float:
    """Prometheus's interpolation inside the bucket holding the q-th observation."""
    total = buckets[-1][1]
    if len(buckets) < 2 or total <= 0 or not math.isinf(buckets[-1][0]):
        return math.nan
    rank = q * total
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if math.isinf(bound):
                return lower_bound
            share = (rank - lower_count) / (count - lower_count) if count > lower_count else 0.0
            return lower_bound + (bound - lower_bound) * share
        lower_bound, lower_count = bound, count
    return math.nan
