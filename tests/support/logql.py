"""The LogQL subset the Loki-shaped test server serves: a stream selector plus line filters.

`{service="api", level=~"error|warn"} |= "timeout" != "retry" |~ "code=5.." !~ "health"`.
Stream selectors share PromQL's label-matcher syntax. Anything else (parsers, metric queries)
raises LogQueryError.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from tools.prometheus.selector import LabelMatcher, SelectorError, parse_matcher_block, read_string

_FILTER_OPERATORS = ("|=", "!=", "|~", "!~")


class LogQueryError(ValueError):
    """The text is not in the supported LogQL subset."""


@dataclass(frozen=True, slots=True)
class LineFilter:
    """One line filter; the regex forms search anywhere in the line, as Loki's do."""

    op: str
    value: str
    pattern: re.Pattern[str] | None = None

    def keeps(self, line: str) -> bool:
        if self.op == "|=":
            return self.value in line
        if self.op == "!=":
            return self.value not in line
        assert self.pattern is not None  # regex filters always carry a compiled pattern
        found = self.pattern.search(line) is not None
        return found if self.op == "|~" else not found


@dataclass(frozen=True, slots=True)
class LogQuery:
    """A parsed log query: which streams, then which lines of them."""

    matchers: tuple[LabelMatcher, ...]
    filters: tuple[LineFilter, ...]

    def selects_stream(self, labels: Mapping[str, str]) -> bool:
        return all(matcher.matches(labels) for matcher in self.matchers)

    def keeps_line(self, line: str) -> bool:
        return all(line_filter.keeps(line) for line_filter in self.filters)

    def matches(self, labels: Mapping[str, str], line: str) -> bool:
        """Whether a line with these stream labels is part of the result."""
        return self.selects_stream(labels) and self.keeps_line(line)


def parse_log_query(text: str) -> LogQuery:
    """Parse the supported subset; raise LogQueryError for anything else."""
    pos = _skip_space(text, 0)
    try:
        matchers, pos = parse_matcher_block(text, pos)
    except SelectorError as error:
        raise LogQueryError(f"invalid stream selector: {error}") from error
    if not any(not matcher.matches({}) for matcher in matchers):
        raise LogQueryError("a stream selector needs a matcher that rejects empty labels")
    filters: list[LineFilter] = []
    pos = _skip_space(text, pos)
    while pos < len(text):
        op = next((name for name in _FILTER_OPERATORS if text.startswith(name, pos)), None)
        if op is None:
            raise LogQueryError(f"unsupported pipeline stage at offset {pos}")
        try:
            value, pos = read_string(text, _skip_space(text, pos + 2))
        except SelectorError as error:
            raise LogQueryError(f"invalid line filter: {error}") from error
        filters.append(_make_filter(op, value))
        pos = _skip_space(text, pos)
    return LogQuery(tuple(matchers), tuple(filters))


def _make_filter(op: str, value: str) -> LineFilter:
    if op in ("|~", "!~"):
        try:
            return LineFilter(op, value, re.compile(value))
        except re.error as error:
            raise LogQueryError("invalid regular expression in line filter") from error
    return LineFilter(op, value)


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos
