"""Which metrics a diagnosis reads, and how: chosen from names, the question and the firing alerts.

Plain data in, plain data out (the tool does the I/O): metric names of the window, metadata, each
firing alert's rule selectors, the words of the question. Alert-linked metrics come first (with the
rule's matchers and the alert's identity), then names under the implicated identities and names
matching the question. The monitoring stack's own telemetry is never chosen unless asked about.
Counters are read as `rate()`, histograms through `histogram_quantile`, gauges as levels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from tools.base import MetricMetadata
from tools.identity import DEFAULT_IDENTITY, IdentityLabels, identity_of
from tools.prometheus.expression import ExprSelector
from tools.prometheus.selector import escape_value

Kind = Literal["counter", "gauge", "histogram", "summary"]
DEFAULT_STACK_JOBS: tuple[str, ...] = ("prometheus", "alertmanager", "pushgateway", "grafana")
# Every exporter's own runtime series, and the series Prometheus synthesises per target or rule.
_EXPORTER_PREFIXES = ("go_", "process_", "promhttp_", "scrape_", "net_conntrack_")
# An exporter's telemetry about itself, by the naming convention exporters share whatever their
# namespace: `<ns>_exporter_...` (mysql_exporter_collector_duration_seconds,
# pg_exporter_last_scrape_error) and `<ns>_scrape_...` (node_scrape_collector_duration_seconds). They
# time the exporter's own scrape, which any load on the machine moves.
_EXPORTER_SELF = re.compile(r"^[a-z0-9]+_(?:exporter|scrape)_")
_SYNTHETIC = frozenset({"ALERTS", "ALERTS_FOR_STATE"})
# Words that put the monitoring stack itself in question.
_STACK_WORDS = frozenset({"monitoring", "scrape", "scraping", "exporter", "exporters", "goroutines"})
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    {"the", "and", "are", "why", "what", "who", "how", "was", "were", "has", "have", "not", "any"}
    | {"for", "with", "from", "this", "that", "there", "its", "into", "can", "does", "did"}
)
# A few words an SRE uses for what metric names spell differently.
_SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "disk": ("filesystem", "disk"),
    "filesystem": ("filesystem",),
    "full": ("avail", "free", "size"),
    "slow": ("latency", "duration", "seconds"),
    "timing": ("duration", "seconds", "timeout"),
    "lock": ("locks", "lock", "waiting", "blocked"),
    "locks": ("locks", "lock", "waiting", "blocked"),
    "connection": ("connections", "connected", "clients"),
    "connections": ("connections", "connected", "clients"),
    "memory": ("memory", "mem"),
    "keys": ("keys",),
    "errors": ("errors", "error", "failed", "failures"),
    "500s": ("errors", "requests", "status"),
}
# The systems a question's words point to, as the name prefixes of their exporters.
_NODE, _DATABASES, _HTTP = ("node_",), ("pg_", "mysql_"), ("http_",)
_DOMAINS: Mapping[str, tuple[str, ...]] = {
    **dict.fromkeys(("host", "hosts", "node", "nodes", "machine", "server", "servers", "cpu"), _NODE),
    **dict.fromkeys(("disk", "disks", "filesystem", "mountpoint", "load", "memory"), _NODE),
    **dict.fromkeys(("database", "databases", "queries", "query", "lock", "locks"), _DATABASES),
    **dict.fromkeys(("transaction", "transactions", "timeout", "timeouts"), _DATABASES),
    **dict.fromkeys(("connections", "sessions", "deadlock", "deadlocks", "replication"), _DATABASES),
    **dict.fromkeys(("postgres", "postgresql", "pg"), ("pg_",)),
    **dict.fromkeys(("mysql", "mariadb"), ("mysql_",)),
    **dict.fromkeys(("redis", "cache", "keys", "evictions"), ("redis_",)),
    **dict.fromkeys(("http", "requests", "500s", "5xx", "endpoint", "latency", "errors"), _HTTP),
}
# What an SRE reads first on each common exporter (USE and RED signals): chosen when the question
# points to the exporter, and as fillers after the question's own words.
KEY_METRICS = frozenset(
    {"up", "node_load1", "node_cpu_seconds_total", "node_memory_MemAvailable_bytes"}
    | {"node_filesystem_avail_bytes", "node_disk_io_time_seconds_total", "node_network_receive_errs_total"}
    | {"pg_up", "pg_stat_activity_count", "pg_locks_count", "pg_stat_database_deadlocks"}
    | {"pg_settings_max_connections", "pg_stat_activity_max_tx_duration"}
    | {"redis_up", "redis_memory_used_bytes", "redis_connected_clients", "redis_db_keys"}
    | {"redis_evicted_keys_total", "redis_rejected_connections_total"}
    | {"mysql_up", "mysql_global_status_threads_connected", "mysql_global_status_threads_running"}
    | {"mysql_global_variables_max_connections", "mysql_global_status_slow_queries"}
    | {"http_requests_total", "http_request_duration_seconds_bucket"}
)
MAX_READS = 12
HISTOGRAM_QUANTILE = 0.99
# A read narrowed by no matcher selects the whole fleet: Prometheus keeps the highest few series
# per step (topk) so that what it sends never grows with the fleet (nor reaches the byte cap).
FLEET_TOPK = 10


@dataclass(frozen=True, slots=True)
class MonitoringStack:
    """What counts as the monitoring stack: its jobs and every exporter's own runtime series."""

    jobs: tuple[str, ...] = DEFAULT_STACK_JOBS

    def owns(self, metric: str) -> bool:
        """Whether a metric name is the stack's own telemetry (by name alone)."""
        prefixes = _EXPORTER_PREFIXES + tuple(f"{job}_" for job in self.jobs)
        return metric in _SYNTHETIC or metric.startswith(prefixes) or bool(_EXPORTER_SELF.match(metric))

    def asked_about(self, words: Iterable[str]) -> bool:
        """Whether the question is about the stack itself (names one of its jobs, or scraping)."""
        return any(word in self.jobs or word in _STACK_WORDS for word in words)

    def job_matcher(self) -> str:
        """A matcher that leaves out series scraped from the stack's jobs."""
        return 'job!~"' + "|".join(re.escape(job) for job in self.jobs) + '"'


DEFAULT_STACK = MonitoringStack()


@dataclass(frozen=True, slots=True)
class AlertLink:
    """A firing alert, its labels and the selectors of its rule's expression."""

    alertname: str
    labels: Mapping[str, str]
    selectors: tuple[ExprSelector, ...] = ()


@dataclass(frozen=True, slots=True)
class Candidate:
    """A metric name chosen for reading, with the matchers that narrow it and why it was chosen."""

    metric: str
    reason: str
    matchers: Mapping[str, str] = field(default_factory=dict)
    rate_s: int | None = None  # the range a firing alert's rule reads it over (`[10s]`), if any
    filters: tuple[str, ...] = ()  # the rule's other matchers (`status=~"5.."`), PromQL text


def question_words(question: str) -> list[str]:
    """The words of a question worth matching against metric names, with their synonyms."""
    words = [w for w in _WORD.findall(question.lower()) if len(w) >= 3 and w not in _STOP]
    expanded = [*words, *(s for w in words for s in _SYNONYMS.get(w, ()))]
    return list(dict.fromkeys(expanded))


def family_of(metric: str) -> str:
    """The metric family metadata is keyed by: a histogram's or summary's name without its suffix."""
    for suffix in ("_bucket", "_count", "_sum"):
        if metric.endswith(suffix):
            return metric[: -len(suffix)]
    return metric


def kind_of(metric: str, meta: MetricMetadata | None) -> Kind:
    """How to read a metric: its declared type, else what its name says (`_total` counts)."""
    declared = meta.type if meta else "unknown"
    if metric.endswith("_bucket") and declared in ("histogram", "unknown"):
        return "histogram"
    if declared == "counter" or (declared == "unknown" and metric.endswith("_total")):
        return "counter"
    if declared in ("histogram", "summary") and metric.endswith(("_count", "_sum")):
        return "counter"  # a histogram's or summary's count and sum only ever grow
    return "summary" if declared == "summary" else "gauge"


def choose(
    names: Sequence[str],
    *,
    question: str,
    links: Sequence[AlertLink] = (),
    implicated: Sequence[str] = (),
    stack: MonitoringStack = DEFAULT_STACK,
    identity: IdentityLabels = DEFAULT_IDENTITY,
    limit: int = MAX_READS,
) -> list[Candidate]:
    """The metrics to read, best first: alert-linked, then implicated and question-matched names."""
    words = question_words(question)
    keep_stack = stack.asked_about(words)
    known = set(names)
    chosen: dict[str, Candidate] = {}

    def add(candidate: Candidate) -> None:
        if candidate.metric not in chosen and (keep_stack or not stack.owns(candidate.metric)):
            chosen[candidate.metric] = candidate

    for link in links:
        pairs = identity_of(link.labels, identity).pairs()
        for sel in link.selectors:
            if sel.metric and (sel.metric in known or not known):
                matchers = {**sel.equalities(), **pairs}
                add(Candidate(sel.metric, f"alert {link.alertname}", matchers, sel.range_s, sel.filters()))
    on_implicated = set(implicated)
    prefixes = tuple(p for word in words for p in _DOMAINS.get(word, ()))
    scores = {name: _score(name, words, prefixes) for name in names}
    scored = sorted(
        (name for name, score in scores.items() if score > 0),
        key=lambda name: (-scores[name], name not in on_implicated, name),
    )
    for name in scored:
        asked = _score(name, words, ()) > (1 if name in KEY_METRICS else 0)
        reason = "question" if asked else "implicated" if name in on_implicated else "key signal"
        # Once systems are implicated, another exporter's key signal is a fleet-wide read the
        # question never asked for: their own names fill in instead.
        if reason == "key signal" and on_implicated and not (prefixes and name.startswith(prefixes)):
            continue
        add(Candidate(name, reason))
    for name in sorted(on_implicated & known):
        add(Candidate(name, "implicated"))
    return list(chosen.values())[:limit]


def narrowed(candidates: Sequence[Candidate], systems: Mapping[str, Mapping[str, str]]) -> list[Candidate]:
    """Each candidate without matchers, narrowed to the implicated system it is scraped from
    (`systems`: metric name -> that system's matchers), so a read never spans the fleet."""
    return [
        Candidate(c.metric, c.reason, dict(systems[c.metric]), c.rate_s, c.filters)
        if not c.matchers and systems.get(c.metric)
        else c
        for c in candidates
    ]


def _score(metric: str, words: Sequence[str], prefixes: tuple[str, ...]) -> int:
    """Question words found in the name's parts; a key metric of a system the question points to
    counts twice more, and any key metric once (a filler after the question's own words)."""
    parts = metric.lower().split("_")
    score = sum(1 for word in words if any(part == word or part.startswith(word) for part in parts))
    if metric in KEY_METRICS:
        score += 1 + (2 if prefixes and metric.startswith(prefixes) else 0)
    return score


def read_promql(
    candidate: Candidate,
    kind: Kind,
    *,
    rate_window: str,
    stack: MonitoringStack | None = DEFAULT_STACK,
    identity: IdentityLabels = DEFAULT_IDENTITY,
) -> str:
    """The PromQL that reads a candidate by its kind; `stack` None keeps the stack's jobs. Without
    matchers the read is bounded server-side to the FLEET_TOPK highest series."""
    by = ", ".join(dict.fromkeys((*identity.labels, *identity.resources)))
    metric = candidate.metric
    if kind == "histogram":
        selector = _selector(f"{family_of(metric)}_bucket", candidate, stack)
        rates = f"sum by (le, {by}) (rate({selector}[{rate_window}]))"
        expr = f"histogram_quantile({HISTOGRAM_QUANTILE}, {rates})"
    else:
        selector = _selector(metric, candidate, stack)
        # A gauge (or a summary's quantiles) is read as its level, every matching series kept.
        expr = f"sum by ({by}) (rate({selector}[{rate_window}]))" if kind == "counter" else selector
    return expr if candidate.matchers else f"topk({FLEET_TOPK}, {expr})"


def read_name(metric: str, kind: Kind) -> str:
    """How the series of a read are named: `rate(name)`, `p99(name)` or the name itself."""
    if kind == "counter":
        return f"rate({metric})"
    if kind == "histogram":
        return f"p{round(HISTOGRAM_QUANTILE * 100)}({family_of(metric)})"
    return metric


def _selector(metric: str, candidate: Candidate, stack: MonitoringStack | None) -> str:
    matchers = candidate.matchers
    parts = [f'{key}="{escape_value(value)}"' for key, value in sorted(matchers.items())]
    parts += candidate.filters
    if stack is not None and "job" not in matchers:
        parts.append(stack.job_matcher())
    return f"{metric}{{{','.join(parts)}}}" if parts else metric
