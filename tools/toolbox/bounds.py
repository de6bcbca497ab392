"""Bounding tool output: JSON-safe values, a byte cap on data, a character cap on summaries.

Every result of every run passes through here on the event loop, so the JSON work uses orjson
(several times faster than the standard library on large results, see bench/README.md); sizes are its
compact UTF-8.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any, TypeVar

import orjson

T = TypeVar("T")

# Anything but plain JSON values raises instead of being converted: `jsonable` decides those.
_STRICT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def json_size(data: Any) -> int:
    """Size in bytes of the compact UTF-8 JSON encoding."""
    try:
        return _orjson_size(data)
    except TypeError:  # beyond orjson (integers over 64 bits, non-string keys)
        return _standard_size(data)


def _orjson_size(data: Any) -> int:
    return len(orjson.dumps(data))


def _standard_size(data: Any) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).encode())


def jsonable(value: Any) -> Any:
    """A strict-JSON copy of `value` (database and driver types made plain; NaN becomes null)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return jsonable(float(value))
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, bytes | bytearray | memoryview):
        return "base64:" + base64.b64encode(bytes(value)[:256]).decode()
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    return str(value)


def clip_text(text: str, max_chars: int) -> str:
    return text if len(text) <= max_chars else text[: max(0, max_chars - 1)] + "…"


def masked_and_bounded(
    data: Mapping[str, Any], max_bytes: int, *, mask: Callable[[str], str]
) -> tuple[dict[str, Any], bool, int]:
    """`data` as plain JSON with `mask` applied to its text, then fitted into `max_bytes`.

    Returns the bounded copy, whether anything was cut, and its size. The common case (plain data
    that fits) costs one encode, one mask pass and one decode.
    """
    text = _plain_json(data)
    loads: Callable[[str], Any] = orjson.loads
    if text is None:  # the rare path (driver types, integers over 64 bits): decoded exactly
        text, loads = _dumps(jsonable(data)), json.loads
    masked = mask(text)
    try:
        plain = loads(masked)
    except ValueError:
        # A mask that broke the JSON (a bug, never expected): mask each string on its own instead of
        # failing the tool call or letting the text through unmasked.
        plain = _strings_masked(loads(text), mask)
        masked = _dumps(plain)
    size = len(masked.encode())
    if size <= max_bytes:
        return plain, False, size
    bounded = _shrunk(plain, max_bytes)
    return bounded, True, json_size(bounded)


def _strings_masked(value: Any, mask: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {mask(k): _strings_masked(v, mask) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings_masked(v, mask) for v in value]
    return value


def bound_data(data: Mapping[str, Any], max_bytes: int) -> tuple[dict[str, Any], bool]:
    """Fit `data` into `max_bytes` of JSON by clipping long strings and dropping trailing list
    items, largest list first. Returns the bounded copy and whether anything was cut."""
    text = _plain_json(data)
    if text is not None:  # fast path: already plain JSON, copied by the C encoder and decoder
        if len(text.encode()) <= max_bytes:
            return orjson.loads(text), False
        bounded: dict[str, Any] = orjson.loads(text)
    else:
        bounded = jsonable(data)
        if json_size(bounded) <= max_bytes:
            return bounded, False
    return _shrunk(bounded, max_bytes), True


def _shrunk(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """Plain JSON `data` (a fresh copy) that does not fit, cut down to `max_bytes`."""
    bounded = data
    _clip_strings(bounded, oversized_string_chars(max_bytes))
    # One measure for the whole and its parts: the two encoders write some floats differently.
    size_of = _orjson_size if _plain_json(bounded) is not None else _standard_size
    while size_of(bounded) > max_bytes:
        lists = [k for k, v in bounded.items() if isinstance(v, list) and v]
        if not lists:
            # Nothing left to shorten: keep only the scalar fields that fit.
            return _scalars_within(bounded, max_bytes)
        key = max(lists, key=lambda k: size_of(bounded[k]))
        bounded[key] = _longest_prefix(bounded, key, max_bytes, size_of)
    return bounded


def _longest_prefix(
    data: dict[str, Any], key: str, max_bytes: int, size_of: Callable[[Any], int]
) -> list[Any]:
    """The longest prefix of `data[key]` that makes `data` fit (at least one item fewer)."""
    items: list[Any] = data[key]
    kept, _ = fitting_prefix(items[:-1], max_bytes, used=size_of({**data, key: []}), size_of=size_of)
    return kept


def fitting_prefix(
    items: Iterable[T], max_bytes: int, *, used: int, size_of: Callable[[Any], int] = json_size
) -> tuple[list[T], bool]:
    """The first `items` that fit, as elements of a JSON list, in `max_bytes` of which the enclosing
    value (with the list empty) already takes `used`; and whether any item was left out.

    Compact JSON of a list is its items joined by commas, so each item is encoded once and the sizes
    are summed, instead of encoding the whole value per candidate length. `items` is read lazily and
    only up to the first item that does not fit.
    """
    kept: list[T] = []
    size = used
    for item in items:
        size += size_of(item) + (1 if kept else 0)
        if size > max_bytes:
            return kept, True
        kept.append(item)
    return kept, False


def oversized_string_chars(max_bytes: int) -> int:
    """How long a string may stay in a result over `max_bytes`: strings are clipped to this before
    list items are dropped."""
    return max(64, max_bytes // 8)


def _plain_json(data: Mapping[str, Any]) -> str | None:
    """Compact JSON of `data` when it holds only plain JSON values (no driver types); NaN is null."""
    try:
        return orjson.dumps(data, option=_STRICT).decode()
    except TypeError:
        return None


def _dumps(plain: Any) -> str:
    try:
        return orjson.dumps(plain).decode()
    except TypeError:  # beyond orjson (integers over 64 bits)
        return json.dumps(plain, ensure_ascii=False, separators=(",", ":"))


def _clip_strings(value: dict[str, Any] | list[Any], max_chars: int) -> None:
    """Clip every string in `value` (a fresh copy this module owns) in place; recurse only into
    containers, since a 64 KB result holds tens of thousands of scalars."""
    entries = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in entries:
        if isinstance(item, str):
            if len(item) > max_chars:
                value[key] = clip_text(item, max_chars)  # type: ignore[index]
        elif isinstance(item, dict | list):
            _clip_strings(item, max_chars)


def _scalars_within(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in data.items():
        candidate = {**kept, key: value if not isinstance(value, dict) else {}}
        if json_size(candidate) <= max_bytes:
            kept = candidate
    return kept
