"""The findings a diagnosis cites: the root's own evidence (its alerts, its strongest series, its top
error patterns, the change before it, who names it), what the systems the question asks about show,
a separate incident's signals, and why each other suspect is ruled out. Each finding cites the
evidence that backs it; EvidenceGuard checks every word against that evidence."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from graph.analysts.base import Finding, RuledOut
from graph.analysts.rules import findings as say
from graph.analysts.rules.addresses import carrying, scraped_as
from graph.analysts.rules.joins import carries
from graph.analysts.rules.links import pointed_at_by
from graph.analysts.rules.scoring import changes_near
from graph.analysts.rules.setting_changes import settings_quoted
from graph.analysts.rules.suspect import Ranking, Suspect
from graph.analysts.rules.vocabulary import CONFIG_CHANGE, ROLLOUT
from tools.facts import Digest, LogPattern

MAX_ANOMALY_FINDINGS = 3


def root_findings(root: Suspect, ranking: Ranking, digest: Digest) -> list[Finding]:
    found: list[Finding] = []
    if root.alerts:
        alerts = say.alert_finding(root.service, root.alerts)
        # An alert that joined the root by the labels its series carry: those series are what say
        # the alert is the root's, so the finding cites them too.
        joined = [g for g in root.alerts if g.service != root.service]
        carried = {a.evidence_id for g in joined for a in root.anomalies if carries(a, g)}
        if joined and not any(a.service == root.service for a in root.anomalies):
            # Known by that name only from its own lines (the pool's log beside its exporter's job):
            # the lines that carry the name are cited too.
            named = [p for p in root.errors[:1] + root.changes[:1] if p.service == root.service]
            carried |= {p.evidence_id for p in named}
        found.append(alerts.model_copy(update={"evidence_ids": sorted({*alerts.evidence_ids, *carried})}))
    anomalies = sorted(root.anomalies, key=lambda a: -a.score)
    # One finding per series kind: the same metric under different labels (code=500 rising,
    # code=200 falling) is a different fact, and each is stated.
    seen_series: set[tuple[str, tuple[str, ...]]] = set()
    for anomaly in anomalies:
        labels = say.distinguishing_labels(anomaly, digest.anomalies)
        if (anomaly.metric, labels) not in seen_series and len(seen_series) < MAX_ANOMALY_FINDINGS:
            seen_series.add((anomaly.metric, labels))
            found.append(say.anomaly_finding(anomaly, labels))
    for pattern in sorted(root.errors, key=lambda p: -p.count)[:2]:
        found.append(say.pattern_finding(root.service, pattern))
    onset = root.onset or ranking.window_start
    for pattern in decisive_changes(root, onset):
        settings = [setting.lower() for setting in settings_quoted(pattern.example)]
        own = [p for p in root.errors if p.service == root.service]
        quoted_in = next((p for p in own if any(x in p.example.lower() for x in settings)), None)
        found.append(say.change_finding(root.service, pattern, quoted_in))
    for downstream, pattern in sorted(root.blamed_by.items())[:3]:
        address = root.addressed_by.get(downstream)
        job = root.job_named_by.get(downstream)
        carriers = carrying(root, address) if address else scraped_as(root, job) if job else []
        found.append(say.blame_finding(downstream, root.service, pattern, address, carriers, job=job))
    for relay, pattern in sorted(root.relayed_by.items())[:2]:
        found.append(say.relay_finding(relay, pattern))
    for later, pattern in sorted(root.followed_by.items())[:2]:
        found.append(say.later_finding(later, pattern))
    # Session-state tables belong to the incident; a root set apart from it cites only rows naming it.
    any_state = not ranking.unrelated
    for summary in digest.sql:
        text = " ".join(summary.highlights).lower()
        if summary.row_count and (root.service.lower() in text or (any_state and _state_like(text))):
            found.append(say.sql_finding(summary))
    for clue in digest.cases:
        if clue.root_cause_service and clue.root_cause_service.lower() == root.service.lower():
            found.append(say.case_finding(root.service, clue))
            break
    return found


def symptom_findings(root: Suspect, ranking: Ranking, focus: Sequence[str]) -> list[tuple[str, Finding]]:
    """What the services the question asks about show, when they are victims rather than the cause."""
    found: list[tuple[str, Finding]] = []
    for suspect in ranking.ranked[1:]:
        asked = suspect.service.lower() in focus or any(
            term in suspect.service.lower().replace("_", "-").split("-") for term in focus
        )
        # Or asked by the instance its exporter's series carry ("what is overloading db-2?").
        asked = asked or any(v.lower() in focus for labels in suspect.label_sets() for v in labels.values())
        callers = pointed_at_by(root)
        if not asked or suspect.service in callers:
            continue
        if suspect.blames & {other.service for other in ranking.unrelated}:
            continue  # a victim of the other incident, named with it
        if suspect.errors:
            pattern = max(suspect.errors, key=lambda p: p.count)
            found.append((suspect.service, say.pattern_finding(suspect.service, pattern)))
        elif suspect.alerts:
            # Asked about and only alerted on (a database whose load rose after its cache emptied): what
            # fires there is what the question saw.
            found.append((suspect.service, say.alert_finding(suspect.service, suspect.alerts[:1])))
    return found[:2]


# A configuration line stating a setting's old and new value ("config reloaded: x.flush_interval 10s ->
# 200ms", "config: max_connections changed from 500 to 100").
_SETTING_MOVED = re.compile(
    r"\bconf\w*\b.*?(?:\S+\s*(?:->|=>|\u2192)\s*\S+|\bfrom\s+\S+\s+to\s+\S+)", re.IGNORECASE
)
_VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b")


def decisive_changes(root: Suspect, onset: datetime | None) -> list[LogPattern]:
    """The change lines nearest before the onset, rollouts and version starts first."""
    if onset is None:
        return []
    near = changes_near(root, onset)
    first = min(near, key=lambda p: _stamp(p.first_seen), default=None)
    # A line that names the version it brought says the most ("image .../consumer:3.9.0").
    # A setting's old and new value ("flush_interval 10s -> 200ms", reloaded after a sync) says the most
    # of all: the rollout is how it arrived.
    near.sort(
        key=lambda p: (
            not _SETTING_MOVED.search(p.example),
            not ROLLOUT.search(p.example),
            not _VERSION.search(p.example),
            -_stamp(p.last_seen),
        )
    )
    if first is not None and CONFIG_CHANGE.search(first.example) and not ROLLOUT.search(first.example):
        # A change of settings before every rollout line started them (a config map applied rolls
        # its pods): it is the change, and the restarts that followed come second.
        return [first, *(p for p in near if p is not first)][:2]
    return near[:2]


def _stamp(value: str) -> float:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _state_like(text: str) -> bool:
    # Session/connection state tables are what hold a datasource's connections.
    return any(cue in text for cue in ("idle in transaction", "waiting", "lock", "blocked"))


def herring_ruled_out(herring: Suspect, root: Suspect) -> RuledOut:
    signals = [g.alertname for g in herring.alerts] + sorted({a.metric for a in herring.anomalies})
    what = ", ".join(signals[:3]) or "its signals"
    ids = sorted({g.evidence_id for g in herring.alerts} | {a.evidence_id for a in herring.anomalies})
    ids = ids or sorted({p.evidence_id for p in herring.errors})  # a herring known by its lines alone
    if herring.onset is None:
        reason = f"{what} started outside the incident window and nothing links it to {root.service}"
    else:
        reason = f"{what} has no causal link: no errors, and no other service names it"
    # The root's own evidence backs the part of the reason that names it.
    return RuledOut(service=herring.service, reason=reason, evidence_ids=[*ids[:4], *_named_in(root)[:1]])


def separate_ruled_out(other: Suspect, root: Suspect) -> RuledOut:
    """A separate incident the scoped question is not about: named, and why it does not explain it."""
    signals = [g.alertname for g in other.alerts] + sorted({a.metric for a in other.anomalies})
    what = ", ".join(signals[:3]) or "its trouble"
    when = "later" if root.onset and other.onset and other.onset > root.onset else "separately"
    reason = (
        f"{what} belong to a separate incident that began {when}; no error of {root.service} names "
        f"{other.service} and nothing links {root.service}'s trouble to it"
    )
    ids = sorted(
        {g.evidence_id for g in other.alerts}
        | {a.evidence_id for a in other.anomalies}
        | {p.evidence_id for p in other.errors}
    )
    return RuledOut(service=other.service, reason=reason, evidence_ids=[*ids[:4], *_named_in(root)[:1]])


def _named_in(suspect: Suspect) -> list[str]:
    """Evidence that names `suspect`: its alerts, its series, its own lines (a root known only by
    its error lines has no alert or series to cite)."""
    ids = [g.evidence_id for g in suspect.alerts] + [a.evidence_id for a in suspect.anomalies]
    return ids + [p.evidence_id for p in [*suspect.errors, *suspect.changes] if p.service == suspect.service]


def aside_findings(suspect: Suspect, digest: Digest) -> list[Finding]:
    """A separate incident in its own terms: its strongest signal, and what its callers say of it
    (an apiserver's "database space exceeded" of a store at its quota)."""
    found = [f for f in [_signal_finding(suspect, digest)] if f is not None]
    callers = [*sorted(suspect.relayed_by.items())[:1], *sorted(suspect.blamed_by.items())[:1]]
    for caller, pattern in callers[:1]:
        if caller in suspect.relayed_by:
            found.append(say.relay_finding(caller, pattern))
        else:
            found.append(say.blame_finding(caller, suspect.service, pattern))
    return found


def _signal_finding(suspect: Suspect, digest: Digest) -> Finding | None:
    """The strongest signal of a system in its own terms: an alert, else a metric move, else its
    largest error pattern."""
    if suspect.alerts:
        return say.alert_finding(suspect.service, suspect.alerts)
    if suspect.anomalies:
        anomaly = max(suspect.anomalies, key=lambda a: a.score)
        return say.anomaly_finding(anomaly, say.distinguishing_labels(anomaly, digest.anomalies))
    if suspect.errors:
        return say.pattern_finding(suspect.service, max(suspect.errors, key=lambda p: p.count))
    return None
