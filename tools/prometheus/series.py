"""How series are identified and ordered, shared by the real and fixture metrics backends."""

from __future__ import annotations

from collections.abc import Mapping


def series_key(metric: str, labels: Mapping[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The order both backends return series in: by name, then by sorted labels."""
    return metric, tuple(sorted(labels.items()))
