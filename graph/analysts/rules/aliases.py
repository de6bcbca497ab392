"""The bare names of namespaced systems: `qv-vault` is also `vault` when `qv-` prefixes other systems
too (an environment's or a team's prefix) and no other system goes by `vault`. A probe's
host, a caller's error line ("vault: permission denied") and a question often use the bare name while
the log stream carries the full one; read as two systems, the probe's alert and the stream's errors
were never judged together.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cache

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


def names_host(text: str, bare: str) -> bool:
    """Whether lower-cased `text` names `bare` as a host or a client's peer: in a URL
    (`://vault`), with a port (`vault:8200`), a domain (`vault.prod.svc`) or as a client library's
    error prefix ("fetch failed: vault: x509 ..."). A bare name is often a word too ("edge",
    "stock", the `edge.events` table): a plain mention is not enough."""
    return _host_pattern(bare).search(text) is not None


@cache
def _host_pattern(bare: str) -> re.Pattern[str]:
    name = re.escape(bare)
    return re.compile(rf"(?:://|@){name}(?![\w-])|(?<![\w.-]){name}(?=:\d|: |\.[a-z0-9-]+[.:])")


# A proxy's name for its backend: `<namespace>-<service>-<port>` (ingress-nginx's upstream), with
# `@<provider>` after it (Traefik's service: `team-auth-8080@kubernetescrd`).
_PROXIED = re.compile(
    r"^(?P<base>[a-z0-9][a-z0-9.-]*?)(?:-(?P<port>\d{2,5}))?(?:@(?P<provider>[a-z0-9.-]+))?$"
)


def proxied_backend(name: str, systems: Mapping[str, Iterable[str]]) -> str | None:
    """The system a proxy's name for a backend stands for: `name` with its port and provider taken
    off is `<namespace>-<system>` (or the system's own name) for a system whose evidence carries that
    namespace. `systems` maps each system to the namespaces its evidence carries. A name with neither
    a port nor a provider is a system's own name."""
    match = _PROXIED.match(name.lower())
    if match is None or not (match.group("port") or match.group("provider")):
        return None
    base, provider = match.group("base"), match.group("provider")
    for system, namespaces in systems.items():
        if system.lower() == name.lower() or len(system) < MIN_BARE_CHARS:
            continue
        # A number alone after a name is a member's ordinal (`kafka-10`, `node-01`), not a port: only
        # a provider, or a namespace before the name, says a proxy wrote it.
        if base == system.lower() and provider:
            return system
        if any(base == f"{ns.lower()}-{system.lower()}" for ns in namespaces):
            return system
    return None
