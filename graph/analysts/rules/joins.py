"""One system under one name: what the evidence says of a system under several names (an alert named
only by a label its series carry, a numbered member, a namespaced or proxied name) joined, and blame
taken off names that are no system (a probed site's URL, an exporter job's name for its one member)."""

from __future__ import annotations

import re
from collections import Counter

from graph.analysts.rules.addresses import is_address
from graph.analysts.rules.aliases import namespace_aliases, proxied_backend
from graph.analysts.rules.suspect import NOT_IDENTITY, Suspect
from tools.facts import AlertGroup, MetricAnomaly

_MEMBER = re.compile(r"^(?P<system>[a-z][a-z0-9-]*[a-z])-\d{1,3}$")


def join_carriers(suspects: dict[str, Suspect]) -> None:
    """An alert whose only name is a label that another system's series carry (an HTTP handler that
    a web app's request series are labelled with) is that system's alert: a group with nothing
    else under its own name joins the one system whose moving series carry all of its identity
    labels, so the alert and the move that explains it are judged together. Series that name the
    lone group's system themselves (a job's series another system took by instance) carry it
    by its own name, which says nothing about whose alert it is."""
    for lone in list(suspects.values()):
        if not lone.alerts or lone.anomalies or lone.errors or lone.changes:
            continue
        kept: list[AlertGroup] = []
        for group in lone.alerts:
            carriers = [
                s
                for s in suspects.values()
                if s is not lone and any(carries(a, group) and a.service != lone.service for a in s.anomalies)
            ]
            if len(carriers) == 1:
                carriers[0].alerts.append(group)
            else:
                kept.append(group)
        if not kept and all(g.labels.get("namespace") == lone.service for g in lone.alerts):
            # Named only by the namespace its alerts were raised in: a place, not a system (a line
            # naming `<namespace>.<table>` is no call to it).
            del suspects[lone.service]
        lone.alerts = kept


def unblame_probed_sites(suspects: dict[str, Suspect]) -> None:
    """A site known only by the URL a prober checks (`instance="https://www.x.example/..."`) is how
    the incident looks from outside, not a dependency: every line of the web tier names its host
    ("server: www.x.example"), which blames no one."""
    for site in suspects.values():
        if not probed_site(site):
            continue
        for caller in site.blamed_by:
            if (other := suspects.get(caller)) is not None:
                other.blames.discard(site.service)
        site.blamed_by.clear()


_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def probed_site(suspect: Suspect) -> bool:
    """Whether a system is known only by the URLs a prober checks: the incident seen from outside,
    part of it whenever others are in trouble (never a bystander to rule out), never its cause by
    the names the web tier's lines give it."""
    instances = [g.labels.get("instance", "") for g in suspect.alerts]
    instances += [a.labels.get("instance", "") for a in suspect.anomalies]
    return not suspect.errors and bool(instances) and all(_URL.match(instance) for instance in instances)


def blame_job_members(suspects: dict[str, Suspect]) -> None:
    """Errors that name an exporter job ("session to coordinator timed out") blame its one member in
    trouble (the instance whose series and alerts carry `job=coordinator`), when the job itself is
    only a name: the member is what failed."""
    for name, job in list(suspects.items()):
        if not job.blamed_by or job.anomalies or job.alerts or job.errors or job.changes:
            continue
        members = [
            s
            for s in suspects.values()
            if s is not job
            and (
                any(a.labels.get("job") == name for a in s.anomalies)
                or any(g.labels.get("job") == name for g in s.alerts)
            )
        ]
        if len(members) != 1:
            continue
        member = members[0]
        for caller, pattern in job.blamed_by.items():
            member.blamed_by.setdefault(caller, pattern)
            member.job_named_by.setdefault(caller, name)
            suspects[caller].blames = (suspects[caller].blames - {name}) | {member.service}
        del suspects[name]


def join_members(suspects: dict[str, Suspect]) -> None:
    """A numbered member (`<system>-1`, an alert's instance) of a system the evidence names (its
    log stream) is that system: its alerts and series are judged with the system's errors."""
    for name in list(suspects):
        match = _MEMBER.match(name)
        whole = suspects.get(match.group("system")) if match else None
        if whole is None:
            continue
        absorb(whole, suspects.pop(name))


def absorb(whole: Suspect, part: Suspect) -> None:
    """`part`'s alerts, series and lines judged as `whole`'s."""
    whole.anomalies += part.anomalies
    whole.errors += part.errors
    whole.changes += part.changes
    whole.alerts += part.alerts


def carries(anomaly: MetricAnomaly, group: AlertGroup) -> bool:
    """Whether a moving series carries every identity label of an alert group (not its name or
    severity): the series is about what the alert is about."""
    identity = {(k, v) for k, v in group.labels.items() if k not in NOT_IDENTITY and k not in _OWNERSHIP}
    return bool(identity) and identity <= anomaly.labels.items()


# Who answers for an alert, not what it is about: a series need not carry them to be the alert's.
_OWNERSHIP = frozenset({"team", "owner", "squad", "oncall", "receiver", "tier", "priority"})


def join_aliases(suspects: dict[str, Suspect], streams: set[str]) -> dict[str, str]:
    """A system known only by its bare name's signals (a probe's alert on `vault`) is the namespaced
    system whose stream logs (`qv-vault`): joined, like a member. Returns the aliases."""
    aliases = namespace_aliases(suspects)
    for bare, full in aliases.items():
        if bare in suspects and bare not in streams and full in suspects:
            absorb(suspects[full], suspects.pop(bare))
    return aliases


def join_deployment_jobs(suspects: dict[str, Suspect]) -> dict[str, str]:
    """A name known only as a scrape job (`cassandra`, listed by discovery) whose series belong to one
    deployment named after it (`cluster=playstate-cassandra`) is that deployment: joined, and its
    callers naming the software ("Cassandra timeout during read query") name it. Returns job -> system."""
    jobs: dict[str, str] = {}
    for name, suspect in list(suspects.items()):
        if suspect.alerts or suspect.anomalies or suspect.errors:
            continue
        owners = [
            other
            for other, s in suspects.items()
            if other != name
            and name in other.split("-")
            and any(labels.get("job") == name for labels in s.label_sets())
        ]
        if len(owners) == 1:
            absorb(suspects[owners[0]], suspects.pop(name))
            jobs[name] = owners[0]
    return jobs


def join_proxied(suspects: dict[str, Suspect]) -> None:
    """A proxy's series about a backend (`service="team-auth-8080@kubernetescrd"`) are the backend's
    (`auth`, whose series carry `namespace="team"`) as its callers see it: joined, like a member."""
    namespaces = {
        name: {ns for labels in s.label_sets() if (ns := labels.get("namespace"))}
        for name, s in suspects.items()
    }
    for name in list(suspects):
        backend = proxied_backend(name, namespaces)
        if backend is not None and backend in suspects:
            absorb(suspects[backend], suspects.pop(name))


# Labels with which a check names the machine behind an address it probes (`target_host=ns-int-01`).
_HOST_KEYS = frozenset({"target_host", "target_hostname", "hostname", "host", "nodename", "node", "server"})


def name_addresses(suspects: dict[str, Suspect]) -> None:
    """A system known by an address (`10.40.0.2`, what callers' lines and a probe's `instance` say)
    whose own alerts or series name the one machine behind it (`target_host=ns-int-01`) goes by that
    name, the one its owners use; if that machine is a system already, the two are one."""
    for name, suspect in list(suspects.items()):
        if not is_address(name):
            continue
        hosts = {
            value
            for labels in suspect.label_sets()
            for key, value in labels.items()
            if key in _HOST_KEYS and value and not is_address(value)
        }
        if len(hosts) == 1:
            _rename(suspects, name, hosts.pop())


# A machine's fully qualified name: its first label, then its domain (`db-01.corp.internal`).
_QUALIFIED = re.compile(r"^(?P<short>[a-z][a-z0-9-]*[a-z0-9])(?:\.[a-z0-9-]+)+$")


def name_qualified_hosts(suspects: dict[str, Suspect], aliases: dict[str, str]) -> None:
    """A machine known by its fully qualified name (an instance's host, `db-01.corp.internal:9100`)
    that its own lines or labels call by its first label (`db-01`: the host its log stream comes from,
    a `host` label of its alerts) goes by that short name, the one its owners use; if the short name
    is a system already, the two are one. Two machines of one short name in different domains keep
    their whole names."""
    shorts = Counter(m.group("short") for name in suspects if (m := _QUALIFIED.match(name)))
    for name, suspect in list(suspects.items()):
        match = _QUALIFIED.match(name)
        if match is None or suspect.external or is_address(name) or shorts[match.group("short")] > 1:
            continue
        short = match.group("short")
        labels = [labels.get(key) for labels in suspect.label_sets() for key in _HOST_KEYS]
        if short in suspects or short in labels:
            _rename(suspects, name, short)
            aliases.update({alias: short for alias, full in aliases.items() if full == name})


def _rename(suspects: dict[str, Suspect], name: str, new: str) -> None:
    """The system known as `name` goes by `new` (joined to the system of that name, if any); what
    others said of `name` is said of `new`."""
    suspect = suspects.pop(name)
    if (known := suspects.get(new)) is not None:
        absorb(known, suspect)
        known.blamed_by |= suspect.blamed_by
        known.relayed_by |= suspect.relayed_by
        known.addressed_by |= suspect.addressed_by
        for callers in (known.blamed_by, known.relayed_by, known.addressed_by):
            callers.pop(new, None)
    else:
        suspect.service = new
        suspects[new] = suspect
    for other in suspects.values():
        for names in (other.blames, other.precedes):
            if name in names:
                names.discard(name)
                if other.service != new:  # what it said of its other name is no link to itself
                    names.add(new)
