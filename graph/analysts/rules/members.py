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

from graph.analysts.rules.addresses import EVERY_MACHINE
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


def software_host(root: Suspect) -> str | None:
    """The machine a system named only by its software runs on: a scrape job called after the
    exporter (`job=sqlserverd`, `job=node`, whose series are `sqlserver_*`, `node_*`) names what runs,
    not where; its one instance (`db-east-3:9104`) is what an on-call
    engineer names and logs into. The series' own names say so, no list of exporters is kept.
    """
    sets = root.label_sets()
    if not sets or any(labels.get("job") != root.service for labels in sets):
        return None
    metrics = [_family(a.metric) for a in root.anomalies]
    if not metrics or sum(_names_software(root.service, m) for m in metrics) * 2 <= len(metrics):
        return None
    hosts = {_without_port(labels["instance"]) for labels in sets if labels.get("instance")}
    if len(hosts) != 1:
        return None
    host = hosts.pop()
    named = next(iter(_names([host])), None)
    return named if named and named != root.service and named not in EVERY_MACHINE else None


def _family(metric: str) -> str:
    """`rate(sqlserver_queries_total)` -> `sqlserver_queries_total`."""
    return metric[metric.find("(") + 1 :].rstrip(")") if "(" in metric else metric


def _names_software(job: str, metric: str) -> bool:
    """Whether a metric's first word and the job's are one name (`sqlserver_...` of `sqlserverd`)."""
    word, first = metric.split("_", 1)[0].lower(), re.split(r"[-_.]", job.lower(), maxsplit=1)[0]
    return len(word) >= 3 and (first.startswith(word) or word.startswith(first))


def _without_port(instance: str) -> str:
    host, _, port = instance.rpartition(":")
    return host if host and port.isdigit() and "]" not in port else instance


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
