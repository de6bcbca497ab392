"""The bare names of namespaced systems: `qv-vault` is also `vault` when `qv-` prefixes other systems
too (an environment's or a team's prefix) and no other system goes by `vault`. A probe's
host, a caller's error line ("vault: permission denied") and a question often use the bare name while
the log stream carries the full one; read as two systems, the probe's alert and the stream's errors
were never judged together.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

MIN_BARE_CHARS = 4  # `api`, `db`, `web`: too common to stand for one system


def namespace_aliases(names: Iterable[str]) -> dict[str, str]:
    """Bare name -> the one namespaced system it stands for."""
    known = set(names)
    heads = Counter(name.split("-", 1)[0] for name in known if "-" in name)
    found: dict[str, list[str]] = {}
    for name in sorted(known):
        head, dash, bare = name.partition("-")
        if dash and heads[head] >= 2 and len(bare) >= MIN_BARE_CHARS and not bare[0].isdigit():
            found.setdefault(bare, []).append(name)
    return {bare: full[0] for bare, full in found.items() if len(full) == 1}
