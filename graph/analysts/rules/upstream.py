"""The ranking seen from the service a question is about: its own trouble first, unless evidence leads
past it to a cause upstream.

"Alert X is firing on S" asks about S's trouble, not about whatever else is burning: the root cause is
S itself unless evidence ties S's symptoms to another service (S's errors name it, S talks to it and its
trouble began first, it changed just before and its lines name S, or it consumes the queue S backs up).
Anything the ranking put first without such a link is an unrelated incident: named and set aside, never
blamed for S's alert. Which service a question is about is `rules.scope`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from graph.analysts.rules.dependencies import mentions
from graph.analysts.rules.links import link_same_machine
from graph.analysts.rules.machines import without_port
from graph.analysts.rules.members import software_host
from graph.analysts.rules.scoring import CHANGE_LEAD
from graph.analysts.rules.suspect import Ranking, Suspect, troubling
from graph.analysts.rules.vocabulary import ERROR_LEVELS
from tools.digest.labels import parse_instant
from tools.facts import Digest, LogPattern
from tools.identity import DEFAULT_IDENTITY, process_host, workload_of_pod


def scope_ranking(ranking: Ranking, target: str, digest: Digest) -> Ranking:
    """The ranking seen from `target`: its own trouble first unless evidence points past it."""
    everyone = {s.service: s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    name = ranking.aliases.get(target, target)  # `vault` asked, `qv-vault` logging
    scoped = everyone.get(name) or _carrier(target, everyone.values())
    if scoped is None:
        # What the question names shows no trouble to rank: other problems are listed, never
        # substituted. Errors of its own too rare to rank (one failed export) are still its trouble
        # when the question is about it.
        own = _own_errors(target, digest)
        return Ranking([own] if own else [], [], own.onset if own else None, unrelated=ranking.ranked[:3])
    if not (scoped.anomalies or scoped.errors):
        link_same_machine(scoped, list(everyone.values()))  # others' errors on its alert's machine
    depth = _causes(scoped, everyone, digest)
    began = _began(scoped)
    beneath = set()
    if began is not None:
        # What it asks about is in trouble because the machine under it is, or because a client that
        # names it changed just before its trouble began (a sink's flush interval cut to 200 ms
        # before the store's parts piled up): that is the root, though the target ranks first.
        beneath = _machine_beneath(scoped, began, everyone)
        beneath |= _changed_clients(scoped, began, everyone, digest)
    if beneath:
        deepest = max(depth.values())
        depth |= {name: deepest + 1 for name in beneath if name not in depth}
    root = _furthest(depth, everyone)
    if (
        not beneath
        and ranking.ranked
        and ranking.ranked[0].service in depth
        and not _beneath_chain(root, depth, everyone)
    ):
        return ranking
    if began is not None and (changed := _change_before(root, began)) is not None:
        # Its trouble began with the change that began the target's: the changes of that one push
        # (a sync, then the settings it reloaded a few seconds later) all count.
        last = min(changed + STEP_SLACK, began + STEP_SLACK)
        root.onset = max(t for t in root.change_times() if changed <= t <= last)
    unrelated = [s for s in ranking.ranked[:1] if s.service not in depth]
    linked = [s for s in ranking.ranked if s.service in depth and s is not root]
    if any(s is root for s in ranking.ranked):
        herrings = [s for s in ranking.herrings if s.service not in depth]
        return replace(ranking, ranked=[root, *linked], herrings=herrings, unrelated=unrelated)
    # The root's trouble lies outside the incident window (or was too quiet to rank): judge it in its
    # own time.
    root.onset = _began(root)
    return Ranking([root, *linked], [], root.onset, unrelated)


def furthest_cause_first(ranking: Ranking, digest: Digest) -> Ranking:
    """The ranking with the furthest link a loudest backlog's evidence leads to put first, when that
    link is in trouble in the incident too: a queue's backlog whose consumer's calls fail at a third
    party that refuses them is that third party's doing, though the backlog fires the alert."""
    if not ranking.ranked or ranking.ranked[0].errors or not _queues(ranking.ranked[0]):
        return ranking  # only a backlog is sure to be a symptom: a system failing itself ranks on
    top = ranking.ranked[0]
    everyone = {s.service: s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    depth = _causes(top, everyone, digest)
    # A backlog the chain's failing consumer explains (the broker's copy of the same queue) is no
    # cause of it, however early its series moved.
    depth = {
        name: d
        for name, d in depth.items()
        if name == top.service or not _backlog_explained(everyone[name], top, depth, everyone, digest)
    }
    root = _furthest(depth, everyone)
    if root is top or not any(s is root for s in ranking.ranked):
        return ranking
    return replace(ranking, ranked=[root, *(s for s in ranking.ranked if s is not root)])


def _backlog_explained(
    suspect: Suspect, top: Suspect, depth: dict[str, int], everyone: dict[str, Suspect], digest: Digest
) -> bool:
    """Whether `suspect` is a backlog the chain already explains: the same queue as `top`'s with no
    errors of its own (the broker's copy of a worker queue), or one whose failing consumer is in it."""
    same_queue = not suspect.errors and bool(_queues(top) & _queues(suspect))
    return same_queue or bool(_failing_consumers(suspect, everyone, digest) & depth.keys())


def changed_caller_first(ranking: Ranking, digest: Digest) -> Ranking:
    """The ranking with the caller that changed just before the first one's series moved put first: a
    store's parts piling up from the minute its ingester's release switched to one insert per row is
    that release's doing, though the store's alerts are the loudest. Only a ranked caller whose errors
    name the store, and only a change no later than a step after the store's first move; a release
    while the store was already moving is no cause of it."""
    if not ranking.ranked:
        return ranking
    first = ranking.ranked[0]
    moved = sorted(
        t for a in first.anomalies if troubling(a) and (t := parse_instant(a.change_at)) is not None
    )
    if not moved:
        return ranking
    everyone = {s.service: s for s in ranking.ranked}
    callers = [
        everyone[name]
        for name in _changed_clients(first, moved[0], everyone, digest)
        if first.service in everyone[name].blames
    ]
    if len(callers) != 1:
        return ranking
    (caller,) = callers
    changed = _change_before(caller, moved[0])
    if changed is not None:
        caller.onset = changed
    rest = [s for s in ranking.ranked if s is not caller]
    return replace(ranking, ranked=[caller, *rest])


def _own_errors(target: str, digest: Digest) -> Suspect | None:
    """`target` with the error lines it logged, however few; None when it logged none."""
    errors = [
        p for p in digest.log_patterns if p.service == target and (p.level or "").lower() in ERROR_LEVELS
    ]
    if not errors:
        return None
    starts = sorted(t for p in errors if (t := parse_instant(p.first_seen)) is not None)
    return Suspect(target, errors=errors, onset=starts[0] if starts else None)


def _carrier(target: str, suspects: Iterable[Suspect]) -> Suspect | None:
    """The one troubled system whose alerts or series carry `target` as a label value (the exporter's
    job on the alert's instance): a question naming the job asks about that instance."""
    name = target.lower()
    carriers = [
        suspect
        for suspect in suspects
        if any(name in {v.lower() for v in g.labels.values()} for g in suspect.alerts)
        or any(name in {v.lower() for v in a.labels.values()} for a in suspect.anomalies)
    ]
    if len(carriers) > 1:
        # Several members of what the question names (an exporter job's instances): the one in the
        # most trouble, when one stands out.
        carriers.sort(key=lambda s: -s.score)
        return carriers[0] if carriers[0].score > carriers[1].score else None
    return carriers[0] if carriers else None


def _beneath_chain(furthest: Suspect, depth: dict[str, int], everyone: dict[str, Suspect]) -> bool:
    """Whether the chain's `furthest` link is a machine under a system of it (a broker's host whose disk
    filled before the brokers failed): that machine, not the louder system above it, is the root."""
    return any(
        furthest.service in _machine_beneath(everyone[name], began, everyone)
        for name in depth
        if name != furthest.service and (began := _began(everyone[name])) is not None
    )


def _causes(scoped: Suspect, everyone: dict[str, Suspect], digest: Digest) -> dict[str, int]:
    """The scoped service and every service its symptoms lead to, with how many links away each is."""
    depth = {scoped.service: 0}
    frontier = [scoped]
    while frontier:
        current = frontier.pop(0)
        for name in sorted(_upstream(current, everyone, digest)):
            if name not in depth:
                depth[name] = depth[current.service] + 1
                frontier.append(everyone[name])
    return depth


def _furthest(depth: dict[str, int], everyone: dict[str, Suspect]) -> Suspect:
    """The furthest link upstream explains the rest of the chain; the earlier start breaks ties."""
    never = datetime.max.replace(tzinfo=UTC)

    def order(name: str) -> tuple[int, float]:
        return (-depth[name], (_began(everyone[name]) or never).timestamp())

    return everyone[min(depth, key=order)]


def _upstream(suspect: Suspect, everyone: dict[str, Suspect], digest: Digest) -> set[str]:
    """Services `suspect`'s errors name, services it calls whose trouble began before its own,
    services whose signals began before its errors (cause before effect), and the failing consumers
    of a queue it backs up."""
    named = {name for name in suspect.blames if name in everyone}
    named |= {name for name, other in everyone.items() if suspect.service in other.precedes}
    began = _began(suspect)
    if began is not None:
        named |= _changed_clients(suspect, began, everyone, digest)
    named |= _failing_consumers(suspect, everyone, digest)
    if began is not None:
        named |= _restarted_just_before(suspect, began, everyone)
        named |= _machine_beneath(suspect, began, everyone)  # a broker whose host's disk filled first
        named |= _noisy_neighbours(suspect, began, everyone)  # pods on its node took the CPU first
    for name in _callees(suspect.service, everyone, digest):
        other = _began(everyone[name])
        if began is not None and other is not None and other < began:
            named.add(name)
    return named


_RESOURCES = frozenset(DEFAULT_IDENTITY.resources)
# Naming labels that say what kind of thing a series is about (`queue_name`, `topic`, `stream_arn`).
_KIND = re.compile(r"_?(?:name|names|id|arn|url)$", re.IGNORECASE)
_KINDS = frozenset({"queue", "topic", "stream", "bucket", "table", "database"})
STEP_SLACK = timedelta(minutes=2)
RESTART_LEAD = timedelta(minutes=5)  # a restart this close before the onset, with no link, is its trigger


# What co-located workloads compete for, in their series' names (a container's CPU seconds, its memory).
_SHARED = re.compile(r"cpu|memory|io_|disk|network")


def _noisy_neighbours(suspect: Suspect, began: datetime, everyone: dict[str, Suspect]) -> set[str]:
    """Workloads on the node `suspect`'s series run on whose use of what `suspect` waits for (its
    moving series' resource: CPU pressure, memory) rose before its trouble began: the neighbour
    took the machine from under it."""
    nodes = {node for labels in suspect.label_sets() if (node := _node_of(labels))}
    wanted = {m.group(0) for a in suspect.anomalies if troubling(a) and (m := _SHARED.search(a.metric))}
    if not nodes or not wanted:
        return set()
    found: set[str] = set()
    for name, other in everyone.items():
        moves = [
            a
            for a in other.anomalies
            if a.labels.get("pod")
            and _node_of(a.labels) in nodes
            and troubling(a)
            and (m := _SHARED.search(a.metric)) is not None
            and m.group(0) in wanted
            and (t := parse_instant(a.change_at)) is not None
            and t < began
        ]
        if name != suspect.service and moves:
            found.add(name)
    return found


def _node_of(labels: Mapping[str, str]) -> str | None:
    """The node a pod's series was read on: its `node` label, else the node agent's address it was
    scraped at (a container agent's `instance=10.42.3.17:10250`)."""
    instance = labels.get("instance")
    return labels.get("node") or (without_port(instance) if instance and labels.get("pod") else None)


def _changed_clients(
    suspect: Suspect, began: datetime, everyone: dict[str, Suspect], digest: Digest
) -> set[str]:
    """Systems whose lines name `suspect` (or the queue, topic or database its series are about) and
    that changed or restarted just before its trouble began: a consumer deployed a minute before its
    queue's backlog grew is that backlog's cause, though the backlog is where the alert fires."""
    marks = {
        suspect.service,
        *(v for labels in suspect.label_sets() for k, v in labels.items() if k in _RESOURCES),
    }
    # What it is, by its series' naming label (`queue_name` -> "queue"): a consumer's "returning all
    # 25 records to queue" speaks of it without its name. Only one changed system may say so.
    kinds = {k for labels in suspect.label_sets() for key in labels if (k := _KIND.sub("", key)) in _KINDS}
    found: set[str] = set()
    kind_only: set[str] = set()
    for name, other in everyone.items():
        if name == suspect.service or _change_before(other, began) is None:
            continue
        if other.changes and all(_names_objects_of(p, suspect.service) for p in other.changes):
            continue  # an orchestrator's events about its pods ("Scaled up replica set x-5b7f9c8d6"): its own
        said = " ".join(f"{p.template} {p.example}" for p in digest.log_patterns if p.service == name)
        if any(len(mark) >= 4 and mentions(said, mark) for mark in marks):
            found.add(name)
        elif any(mentions(said.lower(), kind) for kind in kinds):
            kind_only.add(name)
    return found or (kind_only if len(kind_only) == 1 else set())


def _names_objects_of(pattern: LogPattern, system: str) -> bool:
    """Whether a change line is about `system`'s own objects (`x-5b7f9c8d6`, `x-5b7f9c8d6-7xkqp`)."""
    text = f"{pattern.template} {pattern.example}".lower()
    return re.search(rf"(?<![\w-]){re.escape(system.lower())}-(?:<hex>|[0-9a-f]{{6,10}})\b", text) is not None


def _failing_consumers(suspect: Suspect, everyone: dict[str, Suspect], digest: Digest) -> set[str]:
    """Failing systems whose lines or series name a queue or topic that backs up with no errors of
    its broker's own (`queue=origin-sync` and `origin_sync_uploads_total`): a backlog grows because
    its consumer fails (its lines may come later, as its retries give up), so the consumer is
    upstream of it. A database's failing clients are its effects, not its causes: only queues and
    topics are read so; a broker that fails itself is not a backlog."""
    marks = _queues(suspect)
    # The workers a queue's exporter names as its consumers (`hostname="celery@notify-worker-2"`).
    workers = {w for labels in suspect.label_sets() for v in labels.values() if (w := process_host(v))}
    found: set[str] = set()
    for name, other in everyone.items():
        failing = any(p.count >= 3 for p in other.errors)
        if name == suspect.service or not marks or suspect.errors or not failing:
            continue
        if any(w == name or workload_of_pod(w) == name for w in workers):
            found.add(name)
            continue
        said = [f"{p.template} {p.example}" for p in digest.log_patterns if p.service == name]
        said += [a.metric for a in digest.anomalies if a.service == name]
        text = f" {_spaced(' '.join(said))} "
        if any(len(mark) >= 4 and f" {mark} " in text for mark in marks):
            found.add(name)
    return found


_CONSUMED = frozenset({"queue", "queue_name", "topic", "topic_name", "stream", "stream_name"})


def _queues(suspect: Suspect) -> set[str]:
    """The queues and topics `suspect`'s series and alerts are about."""
    return {_spaced(v) for labels in suspect.label_sets() for k, v in labels.items() if k in _CONSUMED}


def _spaced(text: str) -> str:
    """`origin_sync_uploads_total` and `origin-sync` as words: "origin sync uploads total"."""
    return " ".join(re.split(r"[\W_]+", text.lower())).strip()


def _machine_beneath(suspect: Suspect, began: datetime, everyone: dict[str, Suspect]) -> set[str]:
    """The machine `suspect` runs on, when its host telemetry (a system known by the machine it reports
    on: `software_host`) was in trouble by the time `suspect`'s began: a database's slow fsyncs on a
    disk some other process saturates are the disk's trouble, and the disk is the machine's."""
    machines = {without_port(i) for labels in suspect.label_sets() if (i := labels.get("instance"))}
    found = set()
    for name, other in everyone.items():
        # Its host telemetry, known by its software's name or by the machine's own (a cluster member's
        # host whose disk alerts name it: `kafka-2.x.lan` under the `kafka` brokers).
        if name == suspect.service or (software_host(other) or name) not in machines:
            continue
        if (start := _began(other)) is not None and start <= began + STEP_SLACK:
            found.add(name)
    # Of a cluster's several machines, the one whose trouble came first: the member that broke.
    return found if len(machines) == 1 or len(found) == 1 else set()


def _restarted_just_before(suspect: Suspect, began: datetime, everyone: dict[str, Suspect]) -> set[str]:
    """The one other system whose process started again within RESTART_LEAD before `suspect`'s trouble
    began, when `suspect` itself neither changed nor restarted: a cache that came back empty a minute
    before its database's load rose is the cause of that load, though no line names it. Two restarts
    there say nothing about which one."""
    if suspect.change_times():
        return set()
    found = {
        name
        for name, other in everyone.items()
        if name != suspect.service and any(began - RESTART_LEAD <= t <= began for t in other.restarts())
    }
    return found if len(found) == 1 else set()


def _change_before(suspect: Suspect, began: datetime) -> datetime | None:
    """The first change or restart of `suspect` up to CHANGE_LEAD before `began` (or within a step of
    a minute-resolution series after it: a cloud metric's 13:11 point covers up to 13:12), if any."""
    return next((t for t in suspect.change_times() if began - CHANGE_LEAD <= t <= began + STEP_SLACK), None)


def _callees(service: str, everyone: dict[str, Suspect], digest: Digest) -> set[str]:
    """Other services `service`'s own log lines or metric labels mention: what it talks to."""
    texts = [f"{p.template} {p.example}" for p in digest.log_patterns if p.service == service]
    texts += [
        " ".join(value for key, value in a.labels.items() if key != "service")
        for a in digest.anomalies
        if a.service == service
    ]
    text = " ".join(texts).lower()
    return {name for name in everyone if name != service and mentions(text, name)}


def _began(suspect: Suspect) -> datetime | None:
    if suspect.onset is not None:
        return suspect.onset
    events = suspect.events()
    return events[0] if events else None
