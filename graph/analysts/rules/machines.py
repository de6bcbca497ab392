"""Scrape jobs called after their software, and the machines they run on.

A host agent or an exporter is scraped under a job named after what it is (`job=node` of
`node_*` series, `job=sqlserverd` of `sqlserver_*`), not after where it runs: across several machines the
job is no system at all, each machine is. Whether a job is named so is read from the evidence, the
first word of its series' and alerts' names against the job's, never from a list of exporters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from graph.analysts.rules.addresses import EVERY_MACHINE
from graph.analysts.rules.joins import absorb
from graph.analysts.rules.suspect import Suspect
from tools.facts import Digest, LogPattern

_FIRST_WORD = re.compile(r"[A-Z]?[a-z]+")  # of an alert's CamelCase name


def family(metric: str) -> str:
    """`rate(sqlserver_queries_total)` -> `sqlserver_queries_total`."""
    return metric[metric.find("(") + 1 :].rstrip(")") if "(" in metric else metric


def names_software(job: str, word: str) -> bool:
    """Whether a name's first word and the job's are one name (`sqlserver_...` of `sqlserverd`)."""
    word, first = word.lower(), re.split(r"[-_.]", job.lower(), maxsplit=1)[0]
    return first.startswith(word) or word.startswith(first)


def software_named(job: str, metrics: Iterable[str], alertnames: Iterable[str]) -> bool:
    """Whether most of a job's series (or, with none, its alerts) are named after the job: it names
    the software. Series are the exporter's own words; alerts are their authors' (`HostCpuBusy`
    of `job=node`). A word too short to tell (`pg_`) says nothing either way."""
    words = [w for m in metrics if len(w := family(m).split("_", 1)[0]) >= 3]
    if not words:
        words = [w for name in alertnames if (m := _FIRST_WORD.match(name)) and len(w := m.group(0)) >= 3]
    return bool(words) and sum(names_software(job, w) for w in words) * 2 > len(words)


def without_port(instance: str) -> str:
    host, _, port = instance.rpartition(":")
    return host if host and port.isdigit() and "]" not in port else instance


def machine_jobs(digest: Digest) -> set[str]:
    """Jobs named after their software whose series and alerts come from two machines or more, when
    no log stream speaks under the job's name (or a name holding it): a cluster that logs as one
    system (its members' lines under `service=<job>`) is one system of several members."""
    metrics: dict[str, list[str]] = {}
    alertnames: dict[str, list[str]] = {}
    hosts: dict[str, set[str]] = {}
    labelled: list[tuple[Mapping[str, str], str | None, str | None, str | None]]
    labelled = [(a.labels, a.service, a.metric, None) for a in digest.anomalies]
    labelled += [(g.labels, g.service, None, g.alertname) for g in digest.alert_groups]
    for labels, service, metric, alertname in labelled:
        job, host = labels.get("job"), machine_of(labels)
        if not job or service != job or host is None:
            continue
        hosts.setdefault(job, set()).add(host)
        if metric is not None:
            metrics.setdefault(job, []).append(metric)
        if alertname is not None:
            alertnames.setdefault(job, []).append(alertname)
    streams = [p.service.lower() for p in digest.log_patterns if p.service]
    # One machine is enough when a stream is named for it (a broker's `kafka-2` lines beside
    # `job=node instance=kafka-2.x.lan:9100` disk alerts) or a stream's lines came from it (a
    # database server's lines with `host=db-7`): that machine is a system we know.
    named = {stream.split(".", 1)[0] for stream in streams}
    named |= {p.host.lower().split(".", 1)[0] for p in digest.log_patterns if p.host}
    return {
        job
        for job, seen in hosts.items()
        if (len(seen) >= 2 or {h.lower().split(".", 1)[0] for h in seen} & named)
        and not any(job.lower() in stream for stream in streams)  # `apiserver` logs as `kube-apiserver`
        and software_named(job, metrics.get(job, []), alertnames.get(job, []))
    }


def shared_machines(labelled: Iterable[tuple[Mapping[str, str], str | None]]) -> set[str]:
    """Hosts that two agents or more are scraped at under their own jobs (a node agent on `:9100`
    and a container agent on `:10250` of `w-7`) and that a series or alert names by its `node`
    label: a machine, whatever one agent's job says, even when it is the only machine in trouble."""
    jobs: dict[str, set[str]] = {}
    named: set[str] = set()
    for labels, service in labelled:
        job, host = labels.get("job"), machine_of(labels)
        if job and host is not None and service == job:
            jobs.setdefault(host, set()).add(job)
        if node := labels.get("node"):
            named.add(node)
    return {host for host, seen in jobs.items() if len(seen) >= 2 and host in named}


def join_node_agents(suspects: dict[str, Suspect], machines: set[str]) -> None:
    """A system all of whose series are a machine's own agent's (scraped at the machine and labelled
    with it as their `node`: a node's container agent) is that machine: its lines ("PLEG is not
    healthy") are the machine's trouble, judged with the machine's alerts."""
    for name, agent in list(suspects.items()):
        if name in machines or not agent.anomalies:
            continue
        hosts = {
            labels.get("node") if labels.get("node") == machine_of(labels) else None
            for labels in agent.label_sets()
        }
        (host,) = hosts if len(hosts) == 1 else (None,)
        if host is None or host not in machines or (machine := suspects.get(host)) is None:
            continue
        absorb(machine, suspects.pop(name))


def machine_of(labels: Mapping[str, str]) -> str | None:
    """The machine a series was scraped at (its instance's host), when it names one: not a URL (a
    probe's target), not the loopback every exporter of a one-machine setup shares."""
    instance = labels.get("instance") or ""
    host = without_port(instance)
    if not host or "://" in instance or host in EVERY_MACHINE:
        return None
    return host


def on_machine(labels: Mapping[str, str], service: str | None, jobs: set[str]) -> str | None:
    """The machine a series or alert of a machine job is about, or None for any other job's."""
    job = labels.get("job")
    return machine_of(labels) if job and job == service and job in jobs else None


def machine_line(pattern: LogPattern, machines: set[str], systems: set[str]) -> str | None:
    """The machine a log line is about: a stream that is no system of its own (no series, no alert
    under its name: a kernel's or syslog's) whose lines all came from one machine the series know."""
    host = pattern.host
    if host is None or pattern.service in systems or host not in machines:
        return None
    return host


def machine_owners(labelled: Iterable[tuple[Mapping[str, str], str | None]]) -> dict[str, str]:
    """The system each machine's series and alerts belong to, where exactly one does."""
    owners: dict[str, set[str]] = {}
    for labels, service in labelled:
        if service and (machine := machine_of(labels)) and len(machine) >= 4:
            owners.setdefault(machine.lower(), set()).add(service)
    return {machine: next(iter(names)) for machine, names in owners.items() if len(names) == 1}


def alert_named_after(alertname: str, owners: Mapping[str, str]) -> str | None:
    """The system whose machine an alarm is named after: a cloud alarm's `<resource>-<Metric>-ALARM`
    (`cache-01-StatusCheckFailed-ALARM`, labelled only with the instance's cloud id) is about that
    machine, whatever id its labels give."""
    lowered = alertname.lower()
    found = {owner for machine, owner in owners.items() if lowered.startswith(f"{machine}-")}
    return found.pop() if len(found) == 1 else None


def instance_owner(
    labels: Mapping[str, str], service: str | None, owners: Mapping[str, str], jobs: set[str]
) -> str | None:
    """The system an alert labelled only with an instance is about: the one job scraped there (a
    broker's memory alarm on `mq-02:15692`, where the broker's series are `job=broker`), not the
    address; a host agent's job names no system of its own."""
    instance = labels.get("instance")
    if not service or service != instance:
        return None
    owner = owners.get(without_port(instance).lower())
    if owner is None or owner == service or owner in jobs:
        return None
    # ...when the alert speaks of that job's software: its name (`BrokerMemoryHighWatermark`) or a
    # label of its own (`broker_node`); a host's disk alert beside a node agent's series does not.
    said = [labels.get("alertname", ""), *labels]
    return owner if any(owner.lower() in word.lower() for word in said) else None
