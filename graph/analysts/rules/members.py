"""The member of a system of several where its trouble is: a broker, a data node, a replica.

A system of several members (a Kafka cluster's brokers, an Elasticsearch cluster's nodes) is one
name in the evidence (the log stream `kafka`, the job `elasticsearch`), but when its trouble is
confined to one member, that member is what an on-call engineer names and acts on: the broker whose
log dirs failed (its lines carry `host=kfk-2`), the data node whose disk filled (its alert carries
`name=es-data-2`). The member is named only when the evidence shows other members of the same system
too (else the system is its only member) and when most of the trouble is that member's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from graph.analysts.rules.suspect import Suspect
from tools.facts import Digest

# Labels that name one member of a system (the node, broker or host it runs as), best first.
MEMBER_KEYS = ("name", "nodename", "node", "hostname", "host", "server", "broker", "member")
_CONFINED = 2 / 3  # the share of the trouble one member must hold
_WORKLOAD_KEYS = ("pod", "container", "deployment", "statefulset", "daemonset")
_ADDRESS = re.compile(r"^\[?[\d.:a-fA-F]+\]?(?::\d+)?$")


def trouble_member(root: Suspect, digest: Digest) -> str | None:
    """The one member of `root` most of its trouble comes from, when the evidence knows others."""
    # A group of one member's alerts speaks for it; a group over several members for none of them.
    alerted = Counter(
        m for g in root.alerts if len(g.instances) <= 1 and (m := _member(g.labels, root.service))
    )
    lines: Counter[str | None] = Counter()
    for pattern in root.errors:
        lines[_host(pattern.host, root.service)] += pattern.count  # lines of several hosts count too
    # A workload's lines carry the machine they ran on, not a member of it: hosts name no member there.
    workload = any(k in labels for labels in root.label_sets() for k in _WORKLOAD_KEYS)
    best = _confined(alerted) or (None if alerted or workload else _confined(lines))
    if best is None or not (_members_seen(root.service, digest) - {best}):
        return None
    return best


def _confined(weights: Counter[str] | Counter[str | None]) -> str | None:
    named = [(name, count) for name, count in weights.most_common() if name is not None]
    if not named:
        return None
    best, top = named[0]
    return best if top >= _CONFINED * sum(weights.values()) else None


def _members_seen(system: str, digest: Digest) -> set[str]:
    """Every member of `system` any fact names: its alerts of any state, its lines of any level."""
    seen = {m for g in digest.alert_groups if g.service == system if (m := _member(g.labels, system))}
    seen |= {m for p in digest.log_patterns if p.service == system if (m := _host(p.host, system))}
    return seen


def _member(labels: Mapping[str, str], system: str) -> str | None:
    return next((v for v in _names(labels.get(key) for key in MEMBER_KEYS) if v != system), None)


def _host(host: str | None, system: str) -> str | None:
    return next(iter(_names([host])), None) if host and host != system else None


def _names(values: Iterable[str | None]) -> Iterable[str]:
    """Values that name a member: not an address, not a path, not a phrase."""
    for value in values:
        if value and len(value) >= 3 and not _ADDRESS.match(value) and not re.search(r"[/\s]", value):
            yield value
