"""The vector selectors inside a PromQL expression (an alerting rule's `expr`), found without a server.

Discovery links a firing alert to the metric names and label matchers its rule reads. This is a
scanner, not a PromQL parser: it skips strings, ranges, numbers, function and aggregation names,
keywords and grouping label lists, and reads every remaining `name{...}` / `name` / `{__name__=...}`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.prometheus.selector import (
    LabelMatcher,
    SelectorError,
    parse_matcher_block,
    read_string,
    render_matcher,
)

_IDENT = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_NUMBER = re.compile(r"(?:0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)[a-zA-Z]*")
# Words that are never metric names in expression position.
_KEYWORDS = frozenset(
    {"and", "or", "unless", "bool", "offset", "inf", "nan", "atan2", "group_left", "group_right"}
)
# Aggregation operators: their grouping clause may stand between the name and its parenthesis.
_AGGREGATORS = frozenset(
    {"sum", "avg", "min", "max", "count", "group", "stddev", "stdvar", "topk", "bottomk", "quantile"}
    | {"count_values", "limitk", "limit_ratio"}
)
# Words followed by a parenthesised label list, not an expression.
_LABEL_LISTS = frozenset({"by", "without", "on", "ignoring", "group_left", "group_right"})
MAX_SELECTORS = 16
# A range after a selector (`[10s]`, `[1h30m]`): how far back the rule looks at that series.
_RANGE = re.compile(r"\[\s*((?:\d+(?:ms|[smhdwy]))+)\s*(?::[^\]]*)?\]")
_RANGE_PART = re.compile(r"(\d+)(ms|[smhdwy])")
_UNIT_S = {"ms": 0.001, "s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800, "y": 31_536_000}


@dataclass(frozen=True, slots=True)
class ExprSelector:
    """One selector of an expression: the metric name ("" when only matched by other labels) and
    the equality matchers on other labels (what a query of the same series can reuse)."""

    metric: str
    matchers: tuple[LabelMatcher, ...] = ()
    # The range the expression reads the selector over (`rate(x[10s])`), in whole seconds; None for
    # an instant selector. A read of the same series at this range sees what the rule saw.
    range_s: int | None = None

    def equalities(self) -> dict[str, str]:
        """`label="value"` matchers other than the name: they narrow a read to the alert's series."""
        return {m.name: m.value for m in self.matchers if m.op == "=" and m.name != "__name__"}

    def filters(self) -> tuple[str, ...]:
        """The other matchers (`status=~"5.."`, `mode!="idle"`) as PromQL text: the rule counts only
        those series, so a read of all of them (every status) would dilute what moved."""
        return tuple(render_matcher(m) for m in self.matchers if m.op != "=" and m.name != "__name__")


def selectors_in(expr: str) -> list[ExprSelector]:
    """Every vector selector of `expr`, in order, duplicates removed; [] when it cannot be read."""
    try:
        found = _scan(expr)
    except SelectorError:
        return []
    return list(dict.fromkeys(found))[:MAX_SELECTORS]


def _scan(text: str) -> list[ExprSelector]:
    out: list[ExprSelector] = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char.isspace() or char in "(),+-*/%^=!<>":
            pos += 1
        elif char in "\"'`":
            pos = read_string(text, pos)[1]
        elif char == "[":
            pos = _skip_to(text, pos, "]")
        elif char == "#":  # a comment runs to the end of the line
            pos = _skip_to(text, pos, "\n")
        elif char == "{":
            block, pos = parse_matcher_block(text, pos)
            names = [m.value for m in block if m.name == "__name__" and m.op == "="]
            out.append(_selector(names[0] if names else "", block, _range_at(text, pos)))
        elif char.isdigit() or (char == "." and text[pos + 1 : pos + 2].isdigit()):
            number = _NUMBER.match(text, pos)
            pos = number.end() if number else pos + 1
        elif ident := _IDENT.match(text, pos):
            pos = _after_word(text, ident.group(), ident.end(), out)
        else:
            pos += 1
    return out


def _after_word(text: str, word: str, pos: int, out: list[ExprSelector]) -> int:
    following = _skip_space(text, pos)
    next_char = text[following : following + 1]
    if word.lower() in _LABEL_LISTS:
        return _skip_to(text, following, ")") if next_char == "(" else pos
    if next_char == "(" or word.lower() in _KEYWORDS or word.lower() in _AGGREGATORS:
        return pos  # a function or aggregation name, or an operator keyword
    if next_char == "{":
        block, end = parse_matcher_block(text, following)
        out.append(_selector(word, block, _range_at(text, end)))
        return end
    out.append(ExprSelector(word, range_s=_range_at(text, pos)))
    return pos


def _selector(metric: str, block: list[LabelMatcher], range_s: int | None = None) -> ExprSelector:
    return ExprSelector(metric, tuple(m for m in block if m.name != "__name__"), range_s)


def _range_at(text: str, pos: int) -> int | None:
    """The range literal right after a selector (`[5m]`, a subquery's `[5m:30s]`), in seconds."""
    found = _RANGE.match(text, _skip_space(text, pos))
    if found is None:
        return None
    seconds = sum(int(n) * _UNIT_S[unit] for n, unit in _RANGE_PART.findall(found.group(1)))
    return max(1, round(seconds))


def _skip_to(text: str, pos: int, closing: str) -> int:
    end = text.find(closing, pos)
    return len(text) if end < 0 else end + 1


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos
