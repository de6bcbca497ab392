"""Bounding tool output: JSON-safe values, a byte cap on data, a character cap on summaries."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any


def json_size(data: Any) -> int:
    """Size in bytes of the compact UTF-8 JSON encoding."""
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())


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
    if text is None:
        text = json.dumps(jsonable(data), ensure_ascii=False, separators=(",", ":"))
    text = mask(text)
    size = len(text.encode())
    if size <= max_bytes:
        return json.loads(text), False, size
    bounded = _shrunk(json.loads(text), max_bytes)
    return bounded, True, json_size(bounded)


def bound_data(data: Mapping[str, Any], max_bytes: int) -> tuple[dict[str, Any], bool]:
    """Fit `data` into `max_bytes` of JSON by clipping long strings and dropping trailing list
    items, largest list first. Returns the bounded copy and whether anything was cut."""
    text = _plain_json(data)
    if text is not None:  # fast path: already plain JSON, copied by the C encoder and decoder
        if len(text.encode()) <= max_bytes:
            return json.loads(text), False
        bounded: dict[str, Any] = json.loads(text)
    else:
        bounded = jsonable(data)
        if json_size(bounded) <= max_bytes:
            return bounded, False
    return _shrunk(bounded, max_bytes), True


def _shrunk(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """Plain JSON `data` that does not fit, cut down to `max_bytes`."""
    bounded: dict[str, Any] = _clip_strings(data, max(64, max_bytes // 8))
    while json_size(bounded) > max_bytes:
        lists = [k for k, v in bounded.items() if isinstance(v, list) and v]
        if not lists:
            # Nothing left to shorten: keep only the scalar fields that fit.
            return _scalars_within(bounded, max_bytes)
        key = max(lists, key=lambda k: json_size(bounded[k]))
        bounded[key] = _longest_prefix(bounded, key, max_bytes)
    return bounded


def _longest_prefix(data: dict[str, Any], key: str, max_bytes: int) -> list[Any]:
    """The longest prefix of `data[key]` that makes `data` fit (at least one item fewer).

    Compact JSON of a list is its items joined by commas, so each item is encoded once and the
    prefix sizes are summed, instead of encoding the whole of `data` per candidate length.
    """
    items: list[Any] = data[key]
    size = json_size({**data, key: []})
    kept = 0
    for item in items[:-1]:
        size += json_size(item) + (1 if kept else 0)
        if size > max_bytes:
            break
        kept += 1
    return items[:kept]


def _plain_json(data: Mapping[str, Any]) -> str | None:
    """Compact JSON of `data` when it holds only plain JSON values (no NaN, no driver types)."""
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None


_NUMBERS = (int, float, bool, type(None))


def _clip_strings(value: Any, max_chars: int) -> Any:
    if isinstance(value, str):
        return clip_text(value, max_chars)
    if isinstance(value, dict):
        return {k: _clip_strings(v, max_chars) for k, v in value.items()}
    if isinstance(value, list):
        if all(isinstance(v, _NUMBERS) for v in value):  # samples: nothing to clip
            return value
        return [_clip_strings(v, max_chars) for v in value]
    return value


def _scalars_within(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in data.items():
        candidate = {**kept, key: value if not isinstance(value, dict) else {}}
        if json_size(candidate) <= max_bytes:
            kept = candidate
    return kept
