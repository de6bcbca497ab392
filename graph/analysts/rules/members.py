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

from graph.analysts.rules.addresses import EVERY_MACHINE, is_address
from graph.analysts.rules.machines import software_named, without_port
from graph.analysts.rules.suspect import Suspect
from tools.facts import Digest, MetricAnomaly
from tools.identity import DEFAULT_IDENTITY

# Labels that name one member of a system (the node, broker or host it runs as), best first.
MEMBER_KEYS = ("name", "nodename", "node", "hostname", "host", "server", "broker", "member")
_CONFINED = 2 / 3  # the share of the trouble one member must hold
_EVEN = 1.5  # moves within this factor of each other on every member are one move of the whole
_WORKLOAD_KEYS = ("pod", "container", "deployment", "statefulset", "daemonset")
# The identity labels that name a system outright, ranked before its scrape job.
_NAME_KEYS = DEFAULT_IDENTITY.labels[: DEFAULT_IDENTITY.labels.index("exported_job")]


def trouble_member(root: Suspect, digest: Digest) -> str | None:
    """The one member of `root` most of its trouble comes from, when the evidence knows others."""
    # A group of one member's alerts speaks for it; a group over several members for none of them
    # (several alerts on one address differ in what they name: a balancer's `server=gv-1`, `gv-2`, ...).
    alerted = Counter(
        m
        for g in root.alerts
        if len(g.instances) <= 1 and g.count <= 1 and (m := _member(g.labels, root.service))
    )
    lines: Counter[str | None] = Counter()
    for pattern in root.errors:
        lines[_host(pattern.host, root.service)] += pattern.count  # lines of several hosts count too
    # A workload's lines carry the machine they ran on, not a member of it: hosts name no member there.
    workload = any(k in labels for labels in root.label_sets() for k in _WORKLOAD_KEYS)
    best = _confined(alerted) or (None if alerted or workload else _confined(lines))
    if best is not None and not alerted and not _hosts_logged(root, digest, best):
        # Its lines came from one machine and no other machine logged for it: that machine is where
        # the one process runs, not one member of several (a proxy's `server=` labels are its upstreams).
        return None
    if best is None and not alerted and not workload:
        best = _moving_member(root)
    seen = _members_seen(root.service, digest)
    seen |= {m for a in root.anomalies if (m := _series_member(a.labels))}
    # A member named beside series of the whole (a cluster's node count) is one of several.
    # The system's own name (a Service address `x:9127` beside its pod `x-0`) is no other member.
    if best is None or not (seen - {best, root.service} or _beside_whole(root, best)):
        return None
    return best


def _hosts_logged(root: Suspect, digest: Digest, best: str) -> bool:
    """Whether another machine than `best` logged for `root` (at any level)."""
    return any(
        (h := _host(p.host, root.service)) is not None and h != best
        for p in digest.log_patterns
        if p.service == root.service
    )


def trouble_pod(root: Suspect) -> str | None:
    """The one pod of a workload its moving series hold (`etcd-cp-2` of three): a detail of where,
    not a new name, since the workload is what its owners call it."""
    if not any("pod" in labels for labels in root.label_sets()):
        return None
    return _moving_member(root, pods=True)


def _beside_whole(root: Suspect, member: str) -> bool:
    return any(_member_key(a.labels) == member for a in root.anomalies) and any(
        not _member_key(a.labels) for a in root.anomalies
    )


def _moving_member(root: Suspect, *, pods: bool = False) -> str | None:
    """The member whose series hold the move: of every metric read on several members, one member
    moved (two thirds of the metric's change); a metric read on one member only is that member's;
    one that moved alike on every member, beside others that did not, is the whole's and says nothing."""
    by_metric: dict[str, dict[str, float]] = {}
    # Series that name their member (`name=es-data-4`) beside series of the whole (a cluster's health,
    # read from one exporter's address): the members are the named ones, the address is the exporter's.
    named = [a for a in root.anomalies if _member_key(a.labels)]
    whole = len(named) < len(root.anomalies) and bool(named)
    for anomaly in named if whole else root.anomalies:
        member = _name(anomaly.labels.get("pod", "")) if pods else _series_member(anomaly.labels)
        if member is not None:
            moved = by_metric.setdefault(anomaly.metric, {})
            moved[member] = moved.get(member, 0.0) + abs(anomaly.recent - anomaly.baseline)
    leaders: set[str] = set()
    for moved in by_metric.values():
        if len(moved) >= 2 and min(moved.values()) * _EVEN >= max(moved.values()) and len(by_metric) > 1:
            continue  # the same move on every member (a leader election all of them saw): the whole's
        total = sum(moved.values())
        leader = max(moved, key=lambda m: moved[m])
        if total <= 0 or moved[leader] < _CONFINED * total:
            return None
        leaders.add(leader)
    members = {m for moved in by_metric.values() for m in moved}
    return leaders.pop() if len(leaders) == 1 and (len(members) > 1 or whole) else None


def _named_elsewhere(labels: Mapping[str, str]) -> bool:
    """Whether a series names a member other than the machine it was scraped at (`name=es-data-4`
    read at `es-exporter.obs:9114`); `server=db-replica-2:5432` at `db_replica_2:9187` is that machine."""
    member, instance = _member_key(labels), labels.get("instance")
    return member is not None and instance is not None and _spelled(member) != _spelled(instance)


def _spelled(host: str) -> str:
    return without_port(host).lower().replace("_", "-")


def _member_key(labels: Mapping[str, str]) -> str | None:
    if _probed(labels):
        return None
    return next(iter(_names(labels.get(key) for key in MEMBER_KEYS)), None)


def _probed(labels: Mapping[str, str]) -> bool:
    """Whether a label set is a synthetic check's (a `url` it probes): its `host` is the checker's."""
    return any(str(v).startswith(("http://", "https://")) for v in labels.values())


def member_series(root: Suspect, member: str) -> list[MetricAnomaly]:
    """`root`'s moving series about `member`, the strongest first."""
    return sorted((a for a in root.anomalies if _series_member(a.labels) == member), key=lambda a: -a.score)


def _series_member(labels: Mapping[str, str]) -> str | None:
    """The member a series is about: a member key, else its instance's host."""
    instance = labels.get("instance")
    return _member_key(labels) or (_name(without_port(instance)) if instance else None)


def software_host(root: Suspect) -> str | None:
    """The machine a system named only by its software runs on: a scrape job called after the
    exporter (`job=sqlserverd`, `job=node`, whose series are `sqlserver_*`, `node_*`) names what runs,
    not where; its one instance (`db-east-3:9104`) is what an on-call
    engineer names and logs into. The series' and alerts' own names say so (`node_filesystem_...`,
    `NodeFilesystemAlmostOutOfSpace`); no list of exporters is kept.
    """
    sets = root.label_sets()
    if any(_named_elsewhere(labels) for labels in sets):
        return None  # its series name other members than their instance: that is an exporter's
    jobs = {labels["job"] for labels in sets if "job" in labels}
    if jobs != {root.service} or any(k in labels for labels in sets for k in _NAME_KEYS):
        return None  # named by its job alone (an explicit service or app name names the system)
    metrics = [a.metric for a in root.anomalies]
    if not software_named(root.service, metrics, [g.alertname for g in root.alerts]):
        return None
    # Its alerts' one machine first (where it fires, however the exporter spells that host), else
    # the one machine of all its series.
    alerted = {without_port(g.labels["instance"]) for g in root.alerts if g.labels.get("instance")}
    hosts = alerted if len(alerted) == 1 else {without_port(s["instance"]) for s in sets if s.get("instance")}
    if len(hosts) != 1:
        return None
    host = hosts.pop()
    named = _name(host)
    return named if named and named != root.service and named not in EVERY_MACHINE else None


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
    if _probed(labels):
        return None
    return next((v for v in _names(labels.get(key) for key in MEMBER_KEYS) if v != system), None)


def _host(host: str | None, system: str) -> str | None:
    return _name(host) if host and host != system else None


def _name(value: str) -> str | None:
    return next(iter(_names([value])), None)


def _names(values: Iterable[str | None]) -> Iterable[str]:
    """Values that name a member: not an address, not a path, not a phrase, and not a component named
    in code's camel case (Micrometer's `name=planningExecutor` is a pool inside the app, not a replica
    of it: members are machines, nodes and pods, spelled as hosts are)."""
    for value in values:
        if not value or len(value) < 3 or is_address(value) or re.search(r"[/\s]", value):
            continue
        if _CAMEL.search(value):
            continue
        yield value


_CAMEL = re.compile(r"[a-z][A-Z]")
