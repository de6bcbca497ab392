"""Who a label set is about: its identity, from the labels real systems use, and PromQL matchers for it.

One definition (`IdentityLabels`) of which labels name a system, in priority order; `api.settings`
takes its defaults from here (`SUPERBIZ_BACKENDS__IDENTITY_LABELS`, `..._RESOURCE_LABELS`).
Real exporters rarely set `service`: node, postgres, redis and mysqld series carry `job` and
`instance` only (plus `mountpoint`/`device`, `datname`, ...), and community alert rules that
aggregate `by (instance)` carry no `job` at all. So:

- the **primary identity** is the first label of the ordered list that is present. `namespace` is a
  scope: it pairs with the first workload label after it (`deployment`, `statefulset`, `pod`, whose
  workload is the pod name without its ReplicaSet hash and pod suffix) and with `container`;
- the **qualifiers** are what an SRE needs to find the thing: `instance` (when it is not already
  the primary) and the resource labels (`datname`, `mountpoint`, `device`, `queue`, `topic`).

A label set with none of the list's labels is named by a label whose key says it names something
(`DBInstanceIdentifier`, `CacheClusterId`, `host`, `hostname`, `server`, `resource_name`): vendors
name their dimensions that way, and the list cannot know them all.

`Identity.text` reads `job=node instance=db1:9100 mountpoint=/data`; `Identity.name` is the short
name (`checkout`, `db1:9100`). An empty identity (no label of the list) is still an identity: alert
grouping then falls back to alertname and instance, never drops the alert.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

Pair = tuple[str, str]

# Names first (an explicit service beats an app label, which beats the scrape job), then the
# Kubernetes scope and workload, then the scrape target. `service_name`, `application`, `component`,
# `daemonset` and `k8s_app` are spellings seen in the wild (and in the evaluation worlds).
DEFAULT_IDENTITY_LABELS: tuple[str, ...] = (
    "service",
    "service_name",
    "app_kubernetes_io_name",
    "app",
    "application",
    "component",
    # What a target reported as its own `job` when the scrape's `job` label took the name (Prometheus
    # keeps it as `exported_job`): a scheduler's or a federation's series are about that job.
    "exported_job",
    "job",
    "namespace",
    "deployment",
    "statefulset",
    "daemonset",
    "pod",
    "container",
    "k8s_app",
    "instance",
    # Last: an alert that aggregates every target label away (`sum by (handler)`, as HTTP mixins
    # do) still names the endpoint it is about.
    "handler",
    "endpoint",
    "route",
)
DEFAULT_RESOURCE_LABELS: tuple[str, ...] = ("datname", "mountpoint", "device", "queue", "topic")

_WORKLOAD_LABELS = ("deployment", "statefulset", "daemonset", "pod")
_SCOPE_LABEL = "namespace"
_CONTAINER_LABEL = "container"
INSTANCE_LABEL = "instance"
# Naming keys that name a machine or a group of them, not a resource: a resource's key wins over them.
_MACHINE_KEYS = frozenset({"cluster", "host", "hostname", "server"})
# Keys that name a thing in vendors' own spellings, tried only when no label of the list is present.
_NAMING_KEY = re.compile(
    rf"[Ii]dentifier$|[a-z]Id$|_id$|[a-z]_name$|[a-z]Name$|"
    rf"^(?:{'|'.join(sorted(_MACHINE_KEYS))}|resource_name|database)$"
)
# `celery@worker-1`, `rabbit@mq-0`: a process at a host; `project:instance`: a cloud resource path.
_AT_HOST = re.compile(r"^[^@\s]+@(?P<host>[^@\s]+)$")
_RESOURCE_PATH = re.compile(r"^[^:\s]+:(?P<name>[^:\s]*[^\d:\s][^:\s]*)$")
_NOT_NAMES = frozenset({"alertname", "__name__", "severity", "alertstate", "priority"})
# Where a vendor's resource lives (a cloud project or account, a region): named after what it holds.
_SCOPE_KEYS = frozenset(
    {"project", "project_id", "account", "account_id", "tenant", "tenant_id", "organization", "org_id"}
    | {"region", "location", "zone"}
)

# Kubernetes pod names: <workload>-<pod-template-hash>-<5 chars> (Deployments), <workload>-<5 chars>
# (DaemonSets, Jobs) or <workload>-<ordinal> (StatefulSets). A hash or suffix must hold a digit,
# so "cache-redis" is never cut to "cache".
_DEPLOYMENT_POD = re.compile(r"^(?P<workload>[a-z0-9][a-z0-9-]*?)-(?=[a-z0-9]*\d)[a-z0-9]{5,10}-[a-z0-9]{5}$")
_SUFFIX_POD = re.compile(r"^(?P<workload>[a-z0-9][a-z0-9-]*?)-(?=[a-z0-9]*\d)[a-z0-9]{5}$")
_STATEFUL_POD = re.compile(r"^(?P<workload>[a-z0-9][a-z0-9-]*?)-\d{1,3}$")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?(?P<host>\[[0-9a-fA-F:.]+\]|[^/:?#\s]+)", re.IGNORECASE)
_ADDRESS = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|\[.*\])$")
_LABEL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_OPAQUE = re.compile(r"[0-9a-f]{8,}")  # a run of hex digits: an id minted by a machine
_DNS_LABEL = re.compile(r"^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$")


@dataclass(frozen=True, slots=True)
class IdentityLabels:
    """The identity labels in priority order and the resource labels that qualify an identity."""

    labels: tuple[str, ...] = DEFAULT_IDENTITY_LABELS
    resources: tuple[str, ...] = DEFAULT_RESOURCE_LABELS

    def __post_init__(self) -> None:
        for name in (*self.labels, *self.resources):
            if not _LABEL_NAME.match(name):
                raise ValueError(f"not a Prometheus label name: {name!r}")

    @property
    def name_labels(self) -> tuple[str, ...]:
        """The labels whose value alone names a system (a question's "service" may be any of them)."""
        return tuple(n for n in self.labels if n not in (_SCOPE_LABEL, _CONTAINER_LABEL))


DEFAULT_IDENTITY = IdentityLabels()


@dataclass(frozen=True, slots=True)
class Identity:
    """A label set's identity: the primary pairs, then the qualifier pairs."""

    primary: tuple[Pair, ...] = ()
    qualifiers: tuple[Pair, ...] = ()
    name: str | None = None

    @property
    def empty(self) -> bool:
        return not self.primary and not self.qualifiers

    @property
    def key(self) -> tuple[Pair, ...]:
        """What groups label sets about the same system (the primary pairs only)."""
        return self.primary

    @property
    def instance(self) -> str | None:
        return next((v for k, v in (*self.primary, *self.qualifiers) if k == INSTANCE_LABEL), None)

    @property
    def text(self) -> str:
        """`job=node instance=db1:9100 mountpoint=/data` (empty string for an empty identity)."""
        return " ".join(f"{k}={v}" for k, v in (*self.primary, *self.qualifiers))

    def pairs(self) -> dict[str, str]:
        return dict((*self.primary, *self.qualifiers))


def workload_of_pod(pod: str) -> str | None:
    """The workload a pod name belongs to (`checkout-7d9f8b6c5d-x2x7k` -> `checkout`), or None."""
    pod = pod.strip()
    for pattern in (_DEPLOYMENT_POD, _SUFFIX_POD, _STATEFUL_POD):
        match = pattern.match(pod)
        if match:
            return match.group("workload")
    return None


def _collector_key(labels: Mapping[str, object], key: str, value: str) -> bool:
    """Whether `key` names the collector that scraped the series rather than what it is about: its
    job, or the Kubernetes service of that job (`service=kps-kube-state-metrics` beside
    `job=kube-state-metrics`), when the workload label names another workload. An explicit service
    of its own (`service=billing` without such a job) keeps naming the series."""
    job = _value(labels, "job")
    if key in ("job", "exported_job"):
        return _describes_other_workload(labels, value)
    return key == "service" and job is not None and job in value and _describes_other_workload(labels, job)


def _describes_other_workload(labels: Mapping[str, object], target: str) -> bool:
    """Whether a label set is a collector's report on another workload: its scrape target's name
    (`job=kube-state-metrics`, `service=prometheus-kube-state-metrics`, `job=kubernetes-pods`)
    shares no name with the workload its pod or workload label names (`search-indexer-7d9c8b6f5-q2lxw`);
    an app's own series (`job=checkout`, `pod=checkout-7d9f8b6c5d-x2x7k`) share it."""
    for key in _WORKLOAD_LABELS:
        value = _value(labels, key)
        if value is None:
            continue
        workload = (workload_of_pod(value) if key == "pod" else None) or value
        one, other = workload.lower(), target.lower()
        return one not in other and other not in one
    return False


def _probed_host(value: str) -> str | None:
    """The system a probed URL is about (a blackbox exporter's `instance` is the URL it probes):
    `https://orders-api.prod.internal:8443/health` -> `orders-api`, a private name's first DNS label,
    the name its owners use; a public site (`track.example.io`) and an address (`10.0.0.7`) stay
    whole. None when the value is not a URL."""
    match = _URL.match(value)
    if match is None:
        return None
    host = match.group("host")
    if _ADDRESS.match(host) or _PUBLIC_NAME.search(host):
        return host  # a public site goes by its whole name (`www.` or `track.` alone says nothing)
    return host.split(".", 1)[0]


# A public site's name ends in a country's code or a common generic top-level domain; a cluster's or a
# private network's own names (`x.svc.cluster.local`, `x.prod.internal`, `x.prod`) do not.
_PUBLIC_NAME = re.compile(
    r"\.(?:[a-z]{2}|com|net|org|info|biz|io|app|dev|cloud|online|site|shop|store|tech|ai|example)$"
)


def _value(labels: Mapping[str, object], key: str) -> str | None:
    value = labels.get(key)
    if not isinstance(value, str) or not value.strip():
        return None
    # A pod name that reveals no workload (no hash, no ordinal) names nothing by itself.
    if key == "pod" and workload_of_pod(value) is None:
        return None
    # A Kubernetes namespace is a DNS label; a cloud's `namespace="AWS/SQS"` is a product's, no scope.
    if key == _SCOPE_LABEL and not _DNS_LABEL.match(value.strip()):
        return None
    return value.strip()


def identity_of(labels: Mapping[str, object], config: IdentityLabels = DEFAULT_IDENTITY) -> Identity:
    """The identity of one label set (see the module docstring for the rules)."""
    primary: list[Pair] = []
    name: str | None = None
    order = config.labels
    for index, key in enumerate(order):
        value = _value(labels, key)
        if value is None:
            continue
        if _collector_key(labels, key, value):
            continue  # a collector's series (kube-state-metrics, cAdvisor): about the pod it names
        if key == "job" and (relayed := _relayed_resource(labels, value)) is not None:
            # A cloud exporter's job (`job=stackdriver-exporter` with `database_id=proj:plots-pg`)
            # relays a vendor's metrics about the resource its naming label names.
            primary.append(relayed)
            name = _vendor_short(relayed[1])
            break
        if key == "job" and (deployment := _named_deployment(labels, value)) is not None:
            primary.append(deployment)
            name = deployment[1]
            break
        probed = _value(labels, INSTANCE_LABEL) if key == "job" and INSTANCE_LABEL in order else None
        if probed is not None and _probed_host(probed) is not None:
            # A prober's series (a blackbox exporter's job) are about the URL it probes, not the prober.
            key, value = INSTANCE_LABEL, probed
        if key == _SCOPE_LABEL:
            primary.append((key, value))
            later = order[index + 1 :]
            workload = next((w for w in later if w in _WORKLOAD_LABELS and _value(labels, w)), None)
            if workload is not None:
                wvalue = _value(labels, workload) or ""
                primary.append((workload, wvalue))
                name = workload_of_pod(wvalue) if workload == "pod" else wvalue
            container = _value(labels, _CONTAINER_LABEL) if _CONTAINER_LABEL in later else None
            if container is not None:
                primary.append((_CONTAINER_LABEL, container))
            # The workload names the system; a bare container, then the namespace, only without one.
            name = name or container or value
        else:
            primary.append((key, value))
            name = workload_of_pod(value) if key == "pod" else _probed_host(value) or value
        break
    if not primary and (named := _vendor_name(labels)) is not None:
        primary.append(named)
        name = _vendor_short(named[1])
    keys = {k for k, _ in primary}
    qualifiers: list[Pair] = []
    if INSTANCE_LABEL in order and INSTANCE_LABEL not in keys:
        instance = _value(labels, INSTANCE_LABEL)
        if instance is not None:
            qualifiers.append((INSTANCE_LABEL, instance))
    for key in config.resources:
        value = _value(labels, key)
        if value is not None and key not in keys:
            qualifiers.append((key, value))
    return Identity(tuple(primary), tuple(qualifiers), name)


def _vendor_name(labels: Mapping[str, object]) -> Pair | None:
    """The first (by key) label whose key says it names something, for label sets of no listed label:
    a named resource (`job_name`, `DBInstanceIdentifier`, a managed `database`) before the machine it
    runs on (`host`, `server`): a Flink job's alert with `job_name` and `host` is about the job. An
    opaque id is the answer only when nothing else names the set."""
    keys = sorted(k for k in labels if isinstance(k, str) and k not in _NOT_NAMES)
    opaque: Pair | None = None
    for key in sorted(keys, key=lambda k: (k in _SCOPE_KEYS, k in _MACHINE_KEYS)):
        value = _value(labels, key)
        # A number names no system (a monitor's own `monitor_id=47700218`), and an opaque id
        # (`instance_id=i-0c41f7d2a9e5b3816`) gives way to the name its owners gave it (`name=batch-7`).
        if value is None or not _NAMING_KEY.search(key) or not re.search(r"[A-Za-z]", value):
            continue
        given = _value(labels, "name") or _value(labels, "Name")
        if _OPAQUE.search(value) and given is not None and not _OPAQUE.search(given):
            return ("name" if "name" in labels else "Name", given)
        if _OPAQUE.search(value):
            # An account's id (`subscription_id=6c1e0f4a-...`) names no system when a name follows.
            opaque = opaque or (key, value)
            continue
        return (key, value)
    return opaque


def _relayed_resource(labels: Mapping[str, object], job: str) -> Pair | None:
    """The vendor-named resource a scrape job's series are about, when the naming is a vendor's beyond
    doubt: a dimension's CamelCase key (`DBInstanceIdentifier`, `dimension_QueueName`) or a resource
    path value (`proj:plots-pg`, `projects/p/instances/x`), that shares no name with the job. A plain
    `tenant_id=acme` on an app's own series names no other system."""
    for key in sorted(
        (k for k in labels if isinstance(k, str) and k not in _NOT_NAMES | {"job", INSTANCE_LABEL}),
        key=lambda k: (k in _SCOPE_KEYS, k),
    ):
        value = _value(labels, key)
        if value is None or key in _MACHINE_KEYS or not _NAMING_KEY.search(key) or _OPAQUE.search(value):
            continue
        vendor_key = key.startswith("dimension_") or re.search(r"[a-z][A-Z]|^[A-Z]", key) is not None
        if not (vendor_key or _RESOURCE_PATH.match(value) or "/" in value):
            continue
        short, scraper = _vendor_short(value).lower(), job.lower()
        if short not in scraper and scraper not in short:
            return (key, value)
    return None


_DEPLOYMENT_KEYS = ("cluster", "cluster_name")


def _named_deployment(labels: Mapping[str, object], job: str) -> Pair | None:
    """The deployment a job named for its software is (`job=cassandra` with `cluster=playstate-cassandra`):
    its cluster label spells the software with its owners' words. A cluster label that does not
    (`cluster=prod-eu1`, every series' external label) is where it runs, not what it is."""
    for key in _DEPLOYMENT_KEYS:
        value = _value(labels, key)
        if (
            value is not None
            and value.lower() != job.lower()
            and job.lower() in re.split(r"[-_.]", value.lower())
        ):
            return (key, value)
    return None


def process_host(value: str) -> str | None:
    """The host of a process named at it (`celery@notify-worker-2` -> `notify-worker-2`), else None."""
    at = _AT_HOST.match(value)
    return at.group("host") if at is not None else None


def _vendor_short(value: str) -> str:
    """The system a vendor's naming value is about: `celery@marl-worker-6d8f95-h4kzt` -> `marl-worker`
    (the host, by its workload when it is a pod), `proj:ledger-db` -> `ledger-db` (the resource in
    a project path); `db1:5432` keeps its port, as an instance does, and `db-replica-1` its number
    (a vendor's resource names one instance)."""
    if (host := process_host(value)) is not None:
        return workload_of_pod(host) or host
    if (path := _RESOURCE_PATH.match(value)) is not None:
        return path.group("name")
    return value


def name_of(labels: Mapping[str, object], config: IdentityLabels = DEFAULT_IDENTITY) -> str | None:
    """The short name of a label set's system (`checkout`, `node`, `db1:9100`), or None."""
    return identity_of(labels, config).name


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _regex(literal: str, suffix: str) -> str:
    """A quoted RE2 pattern: `literal` matched exactly, then `suffix` (a pattern)."""
    return _quote(re.escape(literal) + suffix)


def matcher(key: str, value: str) -> str:
    """One PromQL label matcher for an identity pair (a pod matches its workload's pods)."""
    if key == "pod":
        workload = workload_of_pod(value)
        if workload is not None:
            return f"pod=~{_regex(workload, '-.+')}"
    return f"{key}={_quote(value)}"


def selector(identity: Identity, *, qualified: bool = True) -> str:
    """`{job="node",instance="db1:9100",mountpoint="/data"}` for one identity (`{}` when empty)."""
    pairs: Iterable[Pair] = (*identity.primary, *identity.qualifiers) if qualified else identity.primary
    return "{" + ",".join(matcher(k, v) for k, v in pairs) + "}"


def selectors_for_name(name: str, config: IdentityLabels = DEFAULT_IDENTITY) -> tuple[str, ...]:
    """Selectors matching a bare name under any identity label (OR them: several `match[]`, or `or`).

    `list_metrics {"service": "node"}` must find the node exporter's series, which carry
    `job="node"`, never `service`. An instance-like name (`db1`, `db1:9100`) also matches `instance`
    with or without its port. Each selector is one alternative; Prometheus 2 has no OR inside braces.
    """
    name = name.strip()
    if not name:
        return ()
    out: list[str] = []
    for key in config.name_labels:
        if key == "pod":
            out.append(f"{{pod=~{_regex(name, '-.+')}}}")
        elif key == INSTANCE_LABEL:
            out.append(f"{{instance=~{_regex(name, '(:[0-9]+)?')}}}")
        else:
            out.append("{" + f"{key}={_quote(name)}" + "}")
    return tuple(dict.fromkeys(out))
