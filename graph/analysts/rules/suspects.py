"""Ranks candidate root causes from the digest: onset timing, error patterns, alerts, dependency direction.

Every service seen in the digest becomes a `Suspect` with the facts about it. The incident window is
the densest cluster of trouble onsets; a service whose errors name another service points upstream to
it. Services whose signals fall outside the window, or have no causal link to it, are red herrings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

from graph.analysts.rules.addresses import address_owners, names_address
from graph.analysts.rules.background import background, client_mistakes
from graph.analysts.rules.dependencies import link_dependencies, mentions
from graph.analysts.rules.external import external_hosts, vendor_name
from graph.analysts.rules.joins import (
    blame_job_members,
    join_aliases,
    join_carriers,
    join_deployment_jobs,
    join_members,
    join_proxied,
    name_addresses,
    name_qualified_hosts,
    probed_site,
    unblame_probed_sites,
)
from graph.analysts.rules.links import (
    causally_linked,
    link_database_callers,
    link_precursors,
    link_relayed,
    link_same_kind,
    quoted_onset,
    said_first_by,
    surge_of,
)
from graph.analysts.rules.machines import (
    alert_named_after,
    instance_owner,
    join_node_agents,
    machine_jobs,
    machine_line,
    machine_of,
    machine_owners,
    on_machine,
    shared_machines,
)
from graph.analysts.rules.objects import alerted_about, link_shared_objects
from graph.analysts.rules.owners import (
    client_prefix,
    collected,
    collector_jobs,
    consumer_of,
    hosts_named_by_errors,
    named_instance,
    node_of,
    system_of,
)
from graph.analysts.rules.products import link_product_errors
from graph.analysts.rules.quoted import link_quoted_errors
from graph.analysts.rules.resolvers import blame_resolvers
from graph.analysts.rules.scoring import (
    CHANGE_LEAD,
    rank_upstream_over_victims,
    score_suspect,
)
from graph.analysts.rules.setting_changes import attribute_setting_changes
from graph.analysts.rules.suspect import (
    CLUSTER_SPAN,
    Ranking,
    Suspect,
    troubling,
)
from graph.analysts.rules.vocabulary import (
    CHANGE,
    ERROR_LEVELS,
    EVENT,
    SEVERE_ALERTS,
    WAITING_ON_LOCK,
    WARN_LEVELS,
    heartbeat,
)
from tools.facts import Digest, SqlSummary
from tools.prometheus.discovery import MonitoringStack

# SQL columns that name who holds a lock or blocks others, and who waits on them.
_HOLDER_COLUMN = re.compile(r"blocking|blocker|holder|holding|lock_owner", re.IGNORECASE)
_WAITER_COLUMN = re.compile(r"blocked|waiting|waiter", re.IGNORECASE)
# Words that say who is blocked or waits (and who blocks), in a server's own report of its locks.
_SQL_FACT = re.compile(r"^(\w+)=(.+?)(?: \(\d+ of \d+ rows\))?$")


_ACTOR = re.compile(
    r"(?:useridentity|principal\w*|invokedby|assumed-role|arn:aws:sts)\S*"
    r"|\b(?:started|triggered|initiated|requested|approved|applied) by \S+",
    re.IGNORECASE,
)


def rank_suspects(
    digest: Digest,
    *,
    focus: Sequence[str] = (),
    known: Sequence[str] = (),
    stack: MonitoringStack | None = None,
    steady_is_background: bool = False,
) -> Ranking:
    """Score every service with trouble; the top of `ranked` is the most likely root cause.

    `known` adds services discovery found but the digest has no facts about, so that a dependency
    that only shows up in other services' errors can still be named. `stack`, when given, is the
    monitoring stack, whose jobs and own telemetry are never suspects (None: the question is about it).
    `steady_is_background`: lines as steady through the read as before it are no trouble of a system
    nothing else says is in trouble (asked whether anything is wrong, not why something is).
    """
    suspects, aliases = _profile(digest, known, stack, steady_is_background)
    troubled = [s for s in suspects.values() if s.events()]
    if not troubled:
        return Ranking([], [], None, aliases=aliases)
    start = _densest_window(troubled)
    involved: list[Suspect] = []
    herrings: list[Suspect] = []
    for suspect in troubled:
        inside = [t for t in suspect.events() if start <= t <= start + CLUSTER_SPAN * 2]
        suspect.onset = inside[0] if inside else None
        (involved if inside else herrings).append(suspect)
    # A session SQL names as the blocker belongs to the incident even when its own telemetry is calm.
    for suspect in suspects.values():
        if suspect.held_by_sql and suspect not in involved:
            herrings = [h for h in herrings if h is not suspect]
            suspect.onset = start
            involved.append(suspect)
    # A system alerting on what the incident's errors quote ("> 'maxmemory'") is in it, however early.
    for suspect in alerted_about(involved, herrings, digest.log_patterns):
        herrings = [h for h in herrings if h is not suspect]
        suspect.onset = start
        involved.append(suspect)
    # So is one whose own signals said, since before, the failure a caller quotes naming no one.
    for suspect in said_first_by(herrings, involved):
        herrings = [h for h in herrings if h is not suspect]
        suspect.onset = start
        involved.append(suspect)
    # A system whose only sign is a change or platform event just before others' errors is in it too.
    for suspect in _changed_before(suspects.values(), involved):
        herrings = [h for h in herrings if h is not suspect]
        involved.append(suspect)
    link_relayed(involved)
    link_quoted_errors(involved)
    link_shared_objects(involved, digest.log_patterns)
    link_product_errors(involved)
    link_database_callers(involved)
    link_same_kind(involved)
    for suspect in involved:
        suspect.onset = quoted_onset(suspect, involved) or suspect.onset
    linked = causally_linked(involved) | link_precursors(involved)
    if linked:
        linked |= {s.service for s in involved if probed_site(s)}
    # Inside the window but with nothing tying it to the others: a bystander, never the root cause
    # unless it is all there is (then its own signals are the incident).
    bystanders = [s for s in involved if s.service not in linked and _only_signals(s)]
    quiet: list[Suspect] = []
    if len(bystanders) < len(involved):
        involved = [s for s in involved if s not in bystanders]
        # An alert on a bystander is the classic red herring: name it and rule it out.
        herrings += [s for s in bystanders if s.alerts]
        quiet = [s for s in bystanders if not s.alerts]
    for suspect in involved:
        suspect.score = score_suspect(suspect, involved, start, focus)
    rank_upstream_over_victims(involved)
    ranked = sorted(involved, key=lambda s: (-s.score, s.onset or start, s.service))
    return Ranking(ranked, sorted(herrings, key=lambda s: s.service), start, quiet=quiet, aliases=aliases)


def _profile(
    digest: Digest, known: Sequence[str], stack: MonitoringStack | None, steady_is_background: bool
) -> tuple[dict[str, Suspect], dict[str, str]]:
    """Every system with what the digest says about it, joined and linked; and the bare names of
    the namespaced ones."""
    # Alertmanager's counters move whenever any alert fires: the stack is a witness, not a suspect.
    jobs = set(stack.jobs) if stack is not None else set()
    suspects: dict[str, Suspect] = {
        name: Suspect(name) for name in known if len(name) >= 3 and name not in jobs
    }

    def of(service: str | None) -> Suspect | None:
        if not service or service in jobs:
            return None
        if (suspect := suspects.get(service)) is None:
            suspect = suspects[service] = Suspect(service)
        return suspect

    # A host agent's job over several machines is each machine (`job=node` on lb-1 and batch-4).
    hosts = machine_jobs(digest)
    # Which system each machine's moving series belong to (an alert's own address is no owner).
    owners = machine_owners([(a.labels, a.service) for a in digest.anomalies])
    # Systems something else names (a firing alert, their own logs): an exporter's series about them
    # belong to them, not to the exporter's job; an alert known only by an address where one job's
    # series are scraped names that job's system, not a system of its own.
    alerted = {
        g.service
        for g in digest.alert_groups
        if g.service and not instance_owner(g.labels, g.service, owners, hosts)
    }
    # A host is known by its own log stream, or by other systems' errors naming it ("No route to host
    # nas-1.lan" makes a `job=node instance=nas-1:9100` alert nas-1's, not the exporter job's).
    streams = {p.service for p in digest.log_patterns if p.service} | hosts_named_by_errors(digest)
    alerted |= streams
    collectors = collector_jobs(digest)
    # The machines a host agent's job is about: a cluster's state series and alerts about one of them
    # (`kube_node_status_condition{node="pool-b-3", condition="DiskPressure"}`) are that machine's.
    labelled = [(a.labels, a.service) for a in digest.anomalies]
    labelled += [(g.labels, g.service) for g in digest.alert_groups]
    machines = {m for labels, service in labelled if (m := on_machine(labels, service, hosts))}
    machines |= shared_machines(labelled)
    for anomaly in digest.anomalies:
        if stack is not None and (
            stack.owns(_read_metric(anomaly.metric)) or anomaly.labels.get("job") in jobs
        ):
            continue
        system = (
            consumer_of(anomaly.labels, streams)
            or collected(anomaly.labels, anomaly.service, collectors)
            or on_machine(anomaly.labels, anomaly.service, hosts)
            or node_of(anomaly.labels, anomaly.service, machines, streams)
            or system_of(anomaly, alerted)
        )
        if (s := of(system)) is not None:
            s.anomalies.append(anomaly)
    for group in [g for g in digest.alert_groups if not heartbeat(g)]:  # it fires by design
        # A group Alertmanager holds wholly silenced or inhibited is known and muted, not new trouble.
        # An exporter job's alert on one instance is that instance's, when the instance logs under
        # its own name (`job=zookeeper instance=zk-2:7000` and zk-2's log stream).
        system = (
            consumer_of(group.labels, streams)
            or collected(group.labels, group.service, collectors)
            or on_machine(group.labels, group.service, hosts)
            or node_of(group.labels, group.service, machines, streams)
            or named_instance(group.labels, streams, group.service)
            or instance_owner(group.labels, group.service, owners, hosts)
            or alert_named_after(group.alertname, owners)
            or group.service
        )
        if group.status == "firing" and not group.all_muted and (s := of(system)) is not None:
            s.alerts.append(group)
    deployments = join_deployment_jobs(suspects)
    # A kernel's or syslog's lines from one of those machines are about the machine.
    systems = {s for s, suspect in suspects.items() if suspect.anomalies or suspect.alerts}
    for pattern in digest.log_patterns:
        of(pattern.service)  # every stream's system first: a line may be about one listed later
    # A change line naming another system's machine ("server db-a:27017 changed from primary") is its.
    addresses = address_owners(suspects)
    for pattern in digest.log_patterns:
        if (s := of(machine_line(pattern, machines, systems) or pattern.service)) is None:
            continue
        level = (pattern.level or "").lower()
        # Lines as steady through the whole read as before it (no onset inside the window) are no
        # new trouble of a system nothing else says is in trouble (no firing alert, no moving series),
        # when the question asks whether anything is wrong: a chronic leak asked about is its answer.
        # So are a web server's records of clients' own mistakes (401s, 404s at warning level).
        chronic = (
            steady_is_background
            and (pattern.steady or client_mistakes(pattern))
            and not s.alerts
            and not any(troubling(a) for a in s.anomalies)
        )
        warns = level in WARN_LEVELS or WAITING_ON_LOCK.search(pattern.example) is not None
        if not chronic and (level in ERROR_LEVELS or (warns and not background(pattern))):
            s.errors.append(pattern)
        text = f"{pattern.template} {pattern.example}"
        # A line at the same pace through the whole read (a checkpoint every five minutes, a periodic
        # reload) is the system's routine, not a change.
        if (CHANGE.search(text) or EVENT.search(text)) and not pattern.steady:
            # A platform's event about another system (a deploy tool's "application=X", an
            # orchestrator's "Deployment/X") is a change to that system, not to the platform.
            # Who made the change (a cloud audit line's `userIdentity=...assumed-role/x-apply/x`, "started
            # by jenkins") is no system it changed.
            lowered = _ACTOR.sub(" ", text.lower())
            named = [
                other
                for name, other in suspects.items()
                if len(name) >= 3
                and not _related_names(name, s.service)  # its own replica `db-b` is still itself
                and (mentions(lowered, name.lower()) or _config_of(lowered, name.lower()))
                and not client_prefix(lowered, name.lower())
                and (_config_of(lowered, name.lower()) or not _setting_key_part(lowered, name.lower()))
            ]
            named += [
                suspects[owner]
                for address, owner in addresses.items()
                if owner != s.service and suspects[owner] not in named and names_address(lowered, address)
            ]
            for changed in named or [s]:
                changed.changes.append(pattern)
    attribute_setting_changes(suspects)
    join_carriers(suspects)
    join_members(suspects)
    join_node_agents(suspects, machines)
    aliases = join_aliases(suspects, streams)
    join_proxied(suspects)
    # A third party its callers' failing calls name by host is a system of its own (`external`).
    scraped = {m for labels, _ in labelled if (m := machine_of(labels))}
    for host in external_hosts(digest.log_patterns, [*suspects, *aliases, *scraped]):
        name = vendor_name(host, digest.log_patterns)
        suspects.setdefault(name, Suspect(name, external=True))
    link_dependencies(suspects, aliases, deployments)
    blame_resolvers(suspects)
    unblame_probed_sites(suspects)
    blame_job_members(suspects)
    name_addresses(suspects)
    name_qualified_hosts(suspects, aliases)
    _link_sql_holders(suspects, digest.sql)
    return suspects, aliases


def _config_of(text: str, name: str) -> bool:
    """Whether `text` names a configuration object of `name` ("configmap/<name>-config", "<name>.env"):
    applying it changes that system."""
    config = rf"(?<![\w-]){re.escape(name)}[-_.](?:config|conf|cm|env|settings|values)\b"
    return re.search(config, text) is not None


def _setting_key_part(text: str, name: str) -> bool:
    """Whether every mention of `name` is a part of a dotted setting's key (`sink.<name>.flush_interval
    10s -> 200ms`): the logging system's own setting about how it talks to `name`, changed in it."""
    spans = [m.span() for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)]
    return bool(spans) and all(
        (text[end : end + 1] == "." and text[end + 1 : end + 2].islower()) or text[start - 1 : start] == "."
        for start, end in spans
    )


def _related_names(one: str, other: str) -> bool:
    return one == other or one.startswith(f"{other}-") or other.startswith(f"{one}-")


def _read_metric(metric: str) -> str:
    """The metric a fact is about: `rate(x)`, `increase(x)` and `p99(x)` are about `x`."""
    return metric[metric.index("(") + 1 : -1] if metric.endswith(")") and "(" in metric else metric


def _link_sql_holders(suspects: dict[str, Suspect], results: Sequence[SqlSummary]) -> None:
    """A result whose blocking/holder column names a known service points to it as the blocker."""
    for summary in results:
        holders: set[str] = set()
        waiters: set[str] = set()
        for fact in summary.highlights:
            match = _SQL_FACT.match(fact)
            if match is None:
                continue
            column, value = match.group(1), match.group(2).lower()
            named = {name for name in suspects if mentions(value, name)}
            if _HOLDER_COLUMN.search(column):
                holders |= named
            elif _WAITER_COLUMN.search(column):
                waiters |= named
        for holder in holders:
            if summary not in suspects[holder].held_by_sql:
                suspects[holder].held_by_sql.append(summary)
            for waiter in waiters - {holder}:
                suspects[waiter].blames.add(holder)


def _densest_window(troubled: Sequence[Suspect]) -> datetime:
    """Start of the CLUSTER_SPAN holding the most trouble onsets (severity-weighted)."""
    events = sorted(
        (t, 2.0 if any((g.severity or "").lower() in SEVERE_ALERTS for g in s.alerts) else 1.0)
        for s in troubled
        for t in s.events()
    )
    best_start, best_weight = events[0][0], -1.0
    for start, _ in events:
        weight = sum(w for t, w in events if start <= t <= start + CLUSTER_SPAN)
        if weight > best_weight:
            best_start, best_weight = start, weight
    return best_start


def _changed_before(suspects: Iterable[Suspect], involved: Sequence[Suspect]) -> list[Suspect]:
    """Systems outside the incident whose change or event lines came up to CHANGE_LEAD before the
    errors of one inside it; their onset is that change."""
    hurt = [t for s in involved if s.errors and (t := surge_of(s)) is not None]
    found: list[Suspect] = []
    for suspect in suspects:
        if suspect in involved or not hurt:
            continue
        times = suspect.change_times()
        before = [t for t in times if any(onset - CHANGE_LEAD <= t < onset for onset in hurt)]
        if before:
            suspect.onset = before[0]
            found.append(suspect)
    return found


def _only_signals(suspect: Suspect) -> bool:
    named = suspect.blamed_by or suspect.relayed_by or suspect.followed_by or suspect.held_by_sql
    return not (suspect.errors or suspect.changes or suspect.restarts() or named)
