"""PromQL vector selectors (`name{label="v", other=~"re"}`), parsed and matched without a server.

The fixture backend serves only selectors; LogQL stream selectors share the label-matcher syntax.
Regexes are fully anchored, as in Prometheus.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_OPERATORS = ("=~", "!~", "!=", "=")  # two-character operators first: "=" is a prefix of "=~"
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}


class SelectorError(ValueError):
    """The text is not a selector this parser understands."""


@dataclass(frozen=True, slots=True)
class LabelMatcher:
    """One `name op "value"` condition; a missing label reads as the empty string."""

    name: str
    op: str
    value: str
    pattern: re.Pattern[str] | None = None

    def matches(self, labels: Mapping[str, str]) -> bool:
        actual = labels.get(self.name, "")
        if self.op == "=":
            return actual == self.value
        if self.op == "!=":
            return actual != self.value
        assert self.pattern is not None  # regex operators always carry a compiled pattern
        found = self.pattern.fullmatch(actual) is not None
        return found if self.op == "=~" else not found


@dataclass(frozen=True, slots=True)
class Selector:
    """A parsed vector selector; the metric name is the `__name__` label."""

    matchers: tuple[LabelMatcher, ...]

    def matches(self, metric: str, labels: Mapping[str, str]) -> bool:
        """Whether a series named `metric` with `labels` is selected."""
        full = {**labels, "__name__": metric}
        return all(matcher.matches(full) for matcher in self.matchers)


def parse_selector(text: str) -> Selector:
    """Parse `name`, `name{...}` or `{...}`; raise SelectorError for anything else."""
    pos = _skip_space(text, 0)
    matchers: list[LabelMatcher] = []
    name = _METRIC_NAME.match(text, pos)
    if name:
        matchers.append(make_matcher("__name__", "=", name.group()))
        pos = _skip_space(text, name.end())
    if pos < len(text) and text[pos] == "{":
        block, pos = parse_matcher_block(text, pos)
        matchers.extend(block)
    if _skip_space(text, pos) != len(text):
        raise SelectorError(f"unexpected input at offset {pos}")
    if not any(not matcher.matches({}) for matcher in matchers):
        raise SelectorError("a selector needs at least one matcher that rejects empty labels")
    return Selector(tuple(matchers))


def parse_matcher_block(text: str, pos: int) -> tuple[list[LabelMatcher], int]:
    """Parse `{a="x", b!~"y"}` from the brace at `pos`; return the matchers and the end offset."""
    if pos >= len(text) or text[pos] != "{":
        raise SelectorError(f"expected '{{' at offset {pos}")
    matchers: list[LabelMatcher] = []
    pos = _skip_space(text, pos + 1)
    while pos < len(text) and text[pos] != "}":
        name = _LABEL_NAME.match(text, pos)
        if not name:
            raise SelectorError(f"expected a label name at offset {pos}")
        pos = _skip_space(text, name.end())
        op = next((candidate for candidate in _OPERATORS if text.startswith(candidate, pos)), None)
        if op is None:
            raise SelectorError(f"expected a matcher operator at offset {pos}")
        value, pos = read_string(text, _skip_space(text, pos + len(op)))
        matchers.append(make_matcher(name.group(), op, value))
        pos = _skip_space(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_space(text, pos + 1)
        elif pos < len(text) and text[pos] != "}":
            raise SelectorError(f"expected ',' or '}}' at offset {pos}")
    if pos >= len(text):
        raise SelectorError("unclosed '{'")
    return matchers, pos + 1


def read_string(text: str, pos: int) -> tuple[str, int]:
    """Read a string literal ("...", '...' or raw `...`) at `pos`; return it and the end offset."""
    if pos >= len(text) or text[pos] not in "\"'`":
        raise SelectorError(f"expected a quoted string at offset {pos}")
    quote = text[pos]
    out: list[str] = []
    pos += 1
    while pos < len(text):
        char = text[pos]
        if char == quote:
            return "".join(out), pos + 1
        if char == "\\" and quote != "`":
            escaped = text[pos + 1 : pos + 2]
            if escaped not in _ESCAPES:
                raise SelectorError(f"unknown escape sequence at offset {pos}")
            out.append(_ESCAPES[escaped])
            pos += 2
            continue
        if char == "\n" and quote != "`":
            raise SelectorError("newline in string literal")
        out.append(char)
        pos += 1
    raise SelectorError("unterminated string literal")


def render_matcher(matcher: LabelMatcher) -> str:
    """A matcher as PromQL text, its value quoted and escaped."""
    return f'{matcher.name}{matcher.op}"{escape_value(matcher.value)}"'


def escape_value(value: str) -> str:
    """A label value as the inside of a double-quoted PromQL string."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def parse_filter(text: str) -> str:
    """One non-equality matcher (`status=~"5.."`) checked and rendered anew; SelectorError otherwise."""
    block, end = parse_matcher_block("{" + text + "}", 0)
    if end != len(text) + 2 or len(block) != 1 or block[0].op == "=" or block[0].name == "__name__":
        raise SelectorError("a filter is one !=, =~ or !~ matcher on a label")
    return render_matcher(block[0])


def make_matcher(name: str, op: str, value: str) -> LabelMatcher:
    """Build a matcher, compiling the pattern of a regex operator."""
    if op not in _OPERATORS:
        raise SelectorError(f"unknown matcher operator {op!r}")
    if op in ("=~", "!~"):
        try:
            return LabelMatcher(name, op, value, re.compile(value))
        except re.error as error:
            raise SelectorError(f"invalid regular expression for label {name}") from error
    return LabelMatcher(name, op, value)


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos
