"""Errors that name another system: who calls whom.

A line of one system's errors that names another (by its name, its bare name, its host, the address its
series are scraped at, or its name spelled as one word) points to it as the far side of a failing call,
unless the line names it as the one waiting, as its client, as where it fell back to, or says the
caller's own credentials were refused: then the server did its job.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping

from graph.analysts.rules.addresses import address_owners, names_address
from graph.analysts.rules.aliases import names_host
from graph.analysts.rules.machines import software_named
from graph.analysts.rules.resolvers import named_as_looked_up
from graph.analysts.rules.suspect import Suspect
from graph.analysts.rules.vocabulary import own_credentials_refused
from tools.digest.labels import name_pattern
from tools.facts import LogPattern

_WAITER_WORD = re.compile(r"\b(?:blocked(?! by)|waiter|waiting session|deadlock victim)\b")
_BLOCKER_WORD = re.compile(r"\b(?:blocking|blocker|blocked by|holder|holding)\b")
_WAITER_REACH = 60


def mentions(text: str, service: str) -> bool:
    """Whether lower-cased `text` names `service` as a whole word (hyphens count as part of it)."""
    return name_pattern(service.lower()).search(text) is not None


def link_dependencies(
    suspects: dict[str, Suspect], aliases: Mapping[str, str], deployments: Mapping[str, str]
) -> None:
    """A service whose error lines name another known service (by its name or its bare name) points
    to it as upstream; never the exporter job its own series belong to (a broker's "[Kafka server]
    ..." names its own product)."""
    # A job named after its software alone (`node`, whose series are `node_*`) is named by no plain
    # word of a line ("alarm set on node 'rabbit@mq-2'"): its machines are, by their own names.
    # So is a name known only as the job of several systems' series (one cache's exporter job over
    # three hosts): no system of its own, and which of them a line means its word cannot tell.
    owners = Counter(
        job for suspect in suspects.values() for job in {labels.get("job") for labels in suspect.label_sets()}
    )
    names: list[tuple[str, str, Callable[[str, str], bool]]] = [
        (name, name, mentions)
        for name, suspect in suspects.items()
        if not _software_job(suspect) and not (owners[name] > 1 and not _signals(suspect))
    ]
    names += [(bare, full, names_host) for bare, full in aliases.items()]
    names += [(job, system, mentions) for job, system in deployments.items() if system in suspects]
    # A target named `host:port` (an exporter's instance) is named by its host in a line.
    names += [
        (host, name, mentions) for name in suspects if (host := _host_part(name)) and host not in suspects
    ]
    # A system known to the caller only by the address its series are scraped at.
    names += [(address, owner, names_address) for address, owner in address_owners(suspects).items()]
    # A name of several words in another spelling (`traffic-model` as a gRPC `TrafficModel/Predict`).
    names += [(joined, name, names_joined) for name in suspects if (joined := _joined(name))]
    for suspect in suspects.values():
        own_jobs = {a.labels.get("job") for a in suspect.anomalies}
        own_jobs |= {g.labels.get("job") for g in suspect.alerts}
        reports: list[LogPattern] = []
        for pattern in suspect.errors:
            text = _without_served_site(f"{pattern.template} {pattern.example}".lower())
            about = [other for other in suspects if other != suspect.service and reports_about(text, other)]
            if len(about) == 1:
                # An orchestrator's event about one of its objects ("Warning Failed pod/x-5c8d Error:
                # ImagePullBackOff") is that system's own trouble, told by a reporter, not a call
                # the reporter made that failed there.
                suspects[about[0]].errors.append(pattern)
                reports.append(pattern)
                continue
            # Its own credentials refused: the server it names did its job, and its refusals are the
            # caller's trouble (as a server's report naming its waiting client is).
            refused = own_credentials_refused(text)
            hits = [
                (name, other, named)
                for name, other, named in names
                if other != suspect.service
                and other in suspects
                and not own_jobs & {name, other}
                and named(text, name)
            ]
            if any(named is names_address for _, _, named in hits):
                # The address says where the call went: a plain word of the same line that is also
                # some system's name ("Connection to node 2 (10.20.4.12:9092)") is not a second one.
                hits = [hit for hit in hits if hit[2] is not mentions]
            for name, other, named in hits:
                if _named_as_fallback(text, name) or _named_as_fallback(text, other):
                    continue  # "fell back to X": X answered in its place, it is not what failed
                if named_as_looked_up(text, name) or named_as_looked_up(text, other):
                    continue  # "lookup X on ...: server misbehaving": the resolver failed, X unreached
                if refused or _named_as_waiter(text, name) or _named_as_client(text, name):
                    # A server's report names who waits on it ("blocked process report: blocked
                    # spid 417 (quote-svc, ...)"): that caller is the victim, the server upstream
                    # (no words of the caller's to cite: it only points to the server).
                    suspects[other].blames.add(suspect.service)
                    continue
                quoted = suspects[other].blamed_by.setdefault(suspect.service, pattern)
                if named is names_address and quoted is pattern:  # the line quoted holds the address
                    suspects[other].addressed_by.setdefault(suspect.service, name)
                suspect.blames.add(other)
        suspect.errors = [p for p in suspect.errors if p not in reports]


# An orchestrator's reference to one of its objects, `kind/name` (Kubernetes: `pod/api-7f9c-x2k4q`,
# `deployment.apps/api`): a line holding one is a report about that object.
_OBJECT_KINDS = (
    r"pods?|deployments?|replicasets?|statefulsets?|daemonsets?|jobs?|cronjobs?|nodes?|services?|"
    r"persistentvolumeclaims?|pvc|ingress(?:es)?|horizontalpodautoscalers?|hpa"
)


def reports_about(text: str, name: str) -> bool:
    """Whether lower-cased `text` refers to `name` (or one of its pods) as an orchestrator's object
    (`pod/x-5f7b`, a node agent's "container x in pod x-5f7b")."""
    name = name.lower()
    if name not in text:  # cheap first: most lines name no system at all
        return False
    pattern = rf"(?<![\w/.-])(?:(?:{_OBJECT_KINDS})(?:\.[a-z]+)?/|\bin pod ){re.escape(name)}(?![a-z0-9])"
    return re.search(pattern, text) is not None


# A proxy's error line names the virtual server that took the request ("client: 10.0.0.7, server:
# site.example, ..., host: "site.example"): its own site, not what failed behind it.
_SERVED_SITE = re.compile(r"\bserver:\s*[\w.-]+")
_REQUEST_HOST = re.compile(r"\bhost:\s*\"[\w.-]+\"")


def _without_served_site(text: str) -> str:
    if not _SERVED_SITE.search(text):
        return text
    return _REQUEST_HOST.sub(" ", _SERVED_SITE.sub(" ", text))


def _signals(suspect: Suspect) -> bool:
    return bool(suspect.alerts or suspect.anomalies or suspect.errors or suspect.changes)


def _software_job(suspect: Suspect) -> bool:
    """A system known only as an exporter's job named after its software (no log stream of its own)."""
    # A recording rule's `level:metric:operations` is read by its metric (`instance:node_cpu:rate5m`).
    metrics = [parts[1] if len(parts := a.metric.split(":")) == 3 else a.metric for a in suspect.anomalies]
    alertnames = [g.alertname for g in suspect.alerts]
    jobs = {labels.get("job") for labels in suspect.label_sets()}
    return (
        not suspect.errors
        and jobs == {suspect.service}
        and "-" not in suspect.service
        and software_named(suspect.service, metrics, alertnames)
    )


def _joined(name: str) -> str | None:
    """`traffic-model` -> `trafficmodel`: a name of two words or more, long enough to be its own."""
    joined = re.sub(r"[-_]", "", name.lower())
    return joined if joined != name.lower() and len(joined) >= 8 and joined.isalnum() else None


def names_joined(text: str, joined: str) -> bool:
    """Whether lower-cased `text` spells a name of several words as one (`TrafficModel`, `traffic_model`)."""
    return re.search(rf"(?<![a-z0-9]){joined}(?![a-z0-9])", re.sub(r"[-_]", "", text)) is not None


def _host_part(name: str) -> str | None:
    host, colon, port = name.rpartition(":")
    return host if colon and port.isdigit() and len(host) >= 4 else None


def _named_as_client(text: str, name: str) -> bool:
    """Whether `text` names `name` as the client of the one logging ("client 10.3.2.15#53211: query
    failed", "remote_addr=10.3.2.15", a database's "[n1,client=10.40.1.22:51722,user=parcels] slow
    RPC": the session's user is its caller): a server's line about who called it, not about what it
    calls. ("from X" and "peer X" say nothing: a reply comes from the far side too.)"""
    caller = r"(?:(?:client|remote_addr)[\s=:]+|(?:user|application_name)[=:])"
    said = rf"\b{caller}{re.escape(name.lower())}(?![\w-])"
    return re.search(said, text) is not None


def _named_as_fallback(text: str, name: str) -> bool:
    """Whether lower-cased `text` names `name` as where it fell back to ("cache miss on c-2, fell back to
    the store db-1", "backfilling from db-1") or handed its work back to: the far side that answered, or
    the source of the work, not the one that failed."""
    # Work handed back to where it came from ("messages go back to <queue>", "requeued to <queue>") is
    # the caller's own failure returned to its source, not a failure there.
    said = (
        r"\b(?:fell|falling|fall)\s+back\s+to|\bbackfill\w*\s+from|\bserved\s+from"
        r"|\b(?:go(?:es)?|went|sent|put|returned|returning)\s+back\s+(?:to|on|onto|into)|\brequeu\w*\s+(?:to|on|onto|into)"
    )
    named = rf"(?:{said})\s+(?:[\w.-]+\s+){{0,2}}?{re.escape(name.lower())}(?![\w-])"
    return re.search(named, text) is not None


def _named_as_waiter(text: str, name: str) -> bool:
    """Whether lower-cased `text` names `name` as the one blocked or waiting: the clause before the
    name says "blocked" (not "blocked by") or "waiter", with no "blocking" in between."""
    found = name_pattern(name.lower()).search(text)
    if found is None:
        return False
    clause = text[max(0, found.start() - _WAITER_REACH) : found.start()].rsplit(";", 1)[-1]
    waiter = [m.end() for m in _WAITER_WORD.finditer(clause)]
    blocker = [m.end() for m in _BLOCKER_WORD.finditer(clause)]
    return bool(waiter) and (not blocker or max(blocker) < max(waiter))
