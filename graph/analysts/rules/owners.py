"""Whose a series, an alert or a line is: the system the evidence itself names, not the scrape job.

An exporter or a collector is scraped under a job named after what it is (`job=opensearch`,
`job=cloud-metrics-exporter`, a cluster state exporter), but its series are about the system another
label names (`cluster=catalog`, `database_name=billing-db`, `node=pool-b-3`) when that system alerts
or logs under its own name. A host the errors name, an alert's instance that logs as a stream, and a
client line prefixed by the system it took a change from are read here too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from graph.analysts.rules.addresses import EVERY_MACHINE, is_address
from graph.analysts.rules.dependencies import mentions
from graph.analysts.rules.suspect import resource_name
from graph.analysts.rules.vocabulary import ERROR_LEVELS, WARN_LEVELS
from tools.facts import Digest, MetricAnomaly
from tools.identity import DEFAULT_IDENTITY


def hosts_named_by_errors(digest: Digest) -> set[str]:
    """Hosts of the firing alerts' instances that a system's own log line of error or warning level
    names (not a failed scrape's words, which name their target by construction; never the loopback,
    which every exporter of a one-machine setup shares)."""
    # A probe's URL (`https://api.example/healthz`) is no host:port: its scheme names nothing. A pod's
    # address (an alert on `pod=x-6d8f instance=10.44.3.21:8081`) is no machine: a proxy's "upstream
    # 10.44.3.21:8080 timed out" names the pod's workload, as the address's owner.
    hosts = {
        value.rsplit(":", 1)[0]
        for group in digest.alert_groups
        for key in ("instance", "host")
        if (value := group.labels.get(key))
        and "://" not in value
        and not (group.labels.get("pod") and is_address(value))
    } - EVERY_MACHINE
    texts = [
        f"{p.template} {p.example}".lower()
        for p in digest.log_patterns
        if (p.level or "").lower() in ERROR_LEVELS | WARN_LEVELS and not p.origin
    ]
    # A machine several jobs are scraped at (an API server and its store on one control-plane node)
    # hosts several systems: a line naming the machine does not say which one.
    jobs: dict[str, set[str]] = {}
    for labels in [*(a.labels for a in digest.anomalies), *(g.labels for g in digest.alert_groups)]:
        if (instance := labels.get("instance")) and (job := labels.get("job")):
            jobs.setdefault(instance.rsplit(":", 1)[0], set()).add(job)
    return {
        host
        for host in hosts
        if len(host) >= 4 and len(jobs.get(host, ())) <= 1 and any(mentions(text, host) for text in texts)
    }


def named_instance(labels: Mapping[str, str], streams: set[str], service: str | None) -> str | None:
    """The log stream an alert's instance is (its host, port dropped), when it is not the alert's
    own system already."""
    return _named_by(labels, ("instance", "host", "server"), streams, service)


def collector_jobs(digest: Digest) -> set[str]:
    """Jobs that speak for several named resources (a cloud exporter's `job=cloudwatch` with
    `function_name=a`, `function_name=b`, `table_name=c`), by their series' or alerts' labels."""
    by_job: dict[str, set[str]] = {}
    labelled = [(a.labels, a.service) for a in digest.anomalies]
    labelled += [(g.labels, g.service) for g in digest.alert_groups]
    for labels, service in labelled:
        job = labels.get("job")
        named = resource_name(labels)
        if job and service == job and named and named != job:
            by_job.setdefault(job, set()).add(named)
    return {job for job, names in by_job.items() if len(names) >= 2}


def collected(labels: Mapping[str, str], service: str | None, collectors: set[str]) -> str | None:
    """The resource a collector job's series or alert is about (each is its resource's, not the
    job's), or None when the job is not a collector."""
    job = labels.get("job")
    if not job or service != job or job not in collectors:
        return None
    return resource_name(labels)


def node_of(
    labels: Mapping[str, str], service: str | None, machines: set[str], streams: set[str]
) -> str | None:
    """The machine a cluster's series or alert names by its `node` label, when a host agent reads
    that machine too; a system that logs under its own name keeps its own, and a pod's or a
    workload's series (a container's CPU scraped with the node it ran on) stay the workload's."""
    if any(key in labels for key in _WORKLOAD_KEYS):
        return None
    node = labels.get("node")
    return node if node in machines and service not in streams and node != service else None


_WORKLOAD_KEYS = ("pod", "container", "deployment", "statefulset", "daemonset", "job_name")


def system_of(anomaly: MetricAnomaly, alerted: set[str]) -> str | None:
    """The anomaly's system: the one an alert or a log stream names by the series' workload or host,
    when one does (an exporter's `job=db-exporter instance=db-0` series is about the `db-0` an alert
    fires on; a `job=state-exporter deployment=web` series about `web`; a cluster exporter's
    `cluster=search-prod` or `instance=search-prod-exporter:9114` series about `search-prod`)."""
    keys = ("deployment", "statefulset", "daemonset", "instance", "server", "host", "cluster")
    named = _named_by(anomaly.labels, keys, alerted, anomaly.service)
    if named is None and anomaly.service not in alerted:
        # A collector's job that neither alerts nor logs (`job=cloud-metrics-exporter`): its series are
        # about the one system a label of theirs names (`database_name=billing-db`, which alerts).
        # Not a label that names the series' own system or its endpoint (`handler=/pay` of a web app).
        values = {k: v for k, v in anomaly.labels.items() if k not in _OWN_KEYS}
        found = {n for n in alerted if n in values.values()}
        named = found.pop() if len(found) == 1 else None
    return named or anomaly.service


def _named_by(labels: Mapping[str, str], keys: Sequence[str], names: set[str], own: str | None) -> str | None:
    """The first of `names` a label of `keys` holds (a host with or without its port), other than `own`."""
    for key in keys:
        value = labels.get(key) or ""
        host = "" if "://" in value else value.rsplit(":", 1)[0]
        for name in (value, host, _EXPORTER_SUFFIX.sub("", host)):
            if name and name in names and name != own:
                return name
    return None


_OWN_KEYS = frozenset({*DEFAULT_IDENTITY.labels, "__name__"})
# An exporter deployed beside the one system it reads is often named after it: `<system>-exporter`.
_EXPORTER_SUFFIX = re.compile(r"[-_](?:prometheus[-_])?exporter$")


# Labels naming the consumer of a queue or topic (a broker exporter's `consumergroup=x-v3`).
_CONSUMER_KEYS = ("consumergroup", "consumer_group", "group_id", "consumer")


def consumer_of(labels: Mapping[str, str], streams: set[str]) -> str | None:
    """The system a consumer group's series or alert is about: its lag is the consumer's trouble, not
    the broker's. The group is named after its system, often with a version (`ingest-v3` of `ingest`)."""
    for key in _CONSUMER_KEYS:
        if not (value := (labels.get(key) or "").lower()):
            continue
        named = [
            s for s in streams if value == s.lower() or value.startswith((f"{s.lower()}-", f"{s.lower()}_"))
        ]
        if named:
            return max(named, key=len)
    return None


def client_prefix(text: str, name: str) -> bool:
    """Whether a line names `name` as its client library's prefix ("unleash: toggles refreshed"): the
    logging system received the change from it, the change is its own."""
    return re.match(rf"(?:\S*\]\s*)?{re.escape(name)}: ", text) is not None
