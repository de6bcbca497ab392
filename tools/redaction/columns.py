"""Values of table columns whose names say they hold secrets (`rolpassword`, `api_key`, ...).

Text patterns see a SQL row as `["alice", "hunter 2"]`, with nothing naming the value, so rows are
masked by their column names before they are rendered anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tools.redaction.families import KEY_STEMS, REDACTED

_SENSITIVE_NAME = re.compile(rf"(?i)(?:{KEY_STEMS})")
# A number under "tokens" / "max_tokens" / "tokens_used" counts model tokens; text under it is a token.
_TOKEN_COUNT = re.compile(r"(?i)tokens")


def sensitive_name(name: str) -> bool:
    """Whether a key or column named `name` holds a secret by its name."""
    return _SENSITIVE_NAME.search(name) is not None


def masked_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """`rows` as lists, with every non-null value of a sensitive column replaced by the mask."""
    hidden = [i for i, name in enumerate(columns) if sensitive_name(str(name))]
    if not hidden:
        return [list(row) for row in rows]
    counts = {i for i in hidden if _TOKEN_COUNT.search(str(columns[i]))}
    masked: list[list[Any]] = []
    for row in rows:
        values = list(row)
        for i in hidden:
            if i >= len(values) or values[i] is None:
                continue
            if i not in counts or not isinstance(values[i], int | float):
                values[i] = REDACTED
        masked.append(values)
    return masked
