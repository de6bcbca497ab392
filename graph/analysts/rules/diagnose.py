"""Rule-based diagnosis: the top-ranked suspect is the root cause; findings cite the facts that say so.

No trouble in the digest means "no incident found" and no root cause, never an invented one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from graph.analysts.base import DiagnoseRequest, Draft, Finding, Recommendation, RootCause, RuledOut
from graph.analysts.rules import findings as say
from graph.analysts.rules.addresses import carrying, scraped_as
from graph.analysts.rules.categories import CATEGORY_ADVICE, categorize
from graph.analysts.rules.dated import dated_system
from graph.analysts.rules.joins import carries
from graph.analysts.rules.links import link_same_machine, pointed_at_by
from graph.analysts.rules.members import software_host, trouble_member, trouble_pod
from graph.analysts.rules.route import question_terms
from graph.analysts.rules.scope import (
    doubted,
    named_alert_groups,
    scoped_service,
    separate_incidents,
    unseen_systems,
)
from graph.analysts.rules.setting_changes import settings_quoted
from graph.analysts.rules.statement import signal_phrases
from graph.analysts.rules.suspect import Ranking, Suspect
from graph.analysts.rules.suspects import changes_near, rank_suspects
from graph.analysts.rules.upstream import scope_ranking
from graph.analysts.rules.verdict import alert_draft, quiet_draft, recovered, unseen_draft
from graph.analysts.rules.vocabulary import CONFIG_CHANGE, HEALTH_CHECK, MORE_IS_BETTER, ROLLOUT
from tools.digest.labels import parse_instant
from tools.facts import Digest, LogPattern
from tools.prometheus.discovery import DEFAULT_STACK, MonitoringStack, question_words

MAX_ANOMALY_FINDINGS = 3
STANDING_BEFORE = timedelta(hours=2)  # an alert firing this long before the incident is not its headline
MAX_RECOMMENDED_RUNBOOKS = 2


def diagnose_digest(request: DiagnoseRequest, stack: MonitoringStack = DEFAULT_STACK) -> Draft:
    """A diagnosis draft from the digest alone; the monitoring `stack` is no suspect unless asked about."""
    digest = request.digest
    focus = question_terms(request.route.resolved_query) + list(request.route.services)
    ranking, target = _ranked_in_scope(request, stack)
    question = request.route.resolved_query
    unseen = unseen_systems(question, _known(ranking, request), digest)
    if unseen and (target is None or _named_first(question, unseen[0], target)):
        # Asked about a system no evidence names ("why is the x-indexer job failing on <platform>?"):
        # nothing can be said about its health.
        return unseen_draft(request, unseen, ranking)
    if target:
        ranking = scope_ranking(ranking, target, digest)
    elif orphans := [g for g in named_alert_groups(question, digest) if not g.service and not g.all_muted]:
        # The question is about an alert that names no system: it is answered about that alert,
        # never with another system's cause. One an operator silenced is known, not new trouble.
        return alert_draft(request, orphans, ranking)
    now = parse_instant(request.now)
    current = [s for s in ranking.ranked if not recovered(s, now)]
    # A restart is over with the trouble it began: a cache that came back empty while its database is
    # still overloaded is the cause of what is going on now.
    current = [s for s in ranking.ranked if s in current or (current and s.restarts())]
    if not current:
        return quiet_draft(request, ranking, past=ranking.ranked, target=target)
    if len(current) < len(ranking.ranked):
        ranking = replace(ranking, ranked=current)
    ruled = doubted(question, ranking.ranked, focus)  # asked whether it did it, and it did not
    ruled += [s for s in separate_incidents(ranking.ranked) if s not in ruled] if target is None else []
    if ruled:
        # A separate trouble: named beside the root, with what its callers say of it.
        kept = [s for s in ranking.ranked if s not in ruled]
        ranking = replace(ranking, ranked=kept, unrelated=[*ranking.unrelated, *ruled])
    root = ranking.ranked[0]
    if _alert_only(root):
        link_same_machine(root, [*ranking.ranked, *ranking.herrings, *ranking.quiet, *ranking.unrelated])
    if _alert_only(root):
        # A firing alert and nothing else about its system: an incident whose cause is not established.
        draft = alert_draft(request, root.alerts, replace(ranking, ranked=ranking.ranked[1:]))
        return draft.model_copy(update={"ruled_out": [_unrelated(o, root) for o in ranking.unrelated]})
    symptoms = _symptom_findings(root, ranking, focus)
    findings = _root_findings(root, ranking, digest) + [finding for _, finding in symptoms]
    # A separate incident the answer names is shown with its own evidence, like anything it asserts
    # (and adds nothing to the confidence in this one's cause).
    aside = [f for other in ranking.unrelated for f in _aside_findings(other, digest)]
    decisive = _decisive_changes(root, root.onset)
    changes = " ".join(p.example for p in decisive)
    if decisive and CONFIG_CHANGE.search(decisive[0].example) and not ROLLOUT.search(decisive[0].example):
        changes = decisive[0].example  # settings changed first: the rollout after it is its restart
    # The statement and the tag speak of this incident: an alert of the root that fired long before
    # it (a disk warning standing for two days) is listed in the findings, not made its headline.
    told = _without_standing_alerts(_asked_alerts_first(root, question, digest), ranking)
    category = categorize(_category_text(told, ranking), changed=_changed(root), change_text=changes)
    cited = [f for f in findings if f.evidence_ids]
    # A herring named like a ranked system plus a suffix (its pod, its instance) is part of it.
    parts = [h for h in ranking.herrings if _part_of(h.service, ranking.ranked)]
    ruled_out = [_ruled_out(h, root) for h in ranking.herrings if h not in parts]
    ruled_out += [_unrelated(other, root) for other in ranking.unrelated]
    # A system of several members whose trouble is one member's is named by that member; a system
    # known only by its software's name, by the machine it runs on (unless the question calls it so).
    # A failover is the whole set's: the member whose series moved is the new primary taking the load.
    member = None
    if category != "failover":
        member = trouble_member(root, digest) or (None if root.service in focus else software_host(root))
    statement = _statement(told, ranking, category, member, pod=None if member else trouble_pod(root))
    confidence = min(0.9, 0.4 + 0.1 * len({i for f in cited for i in f.evidence_ids}))
    cited += [f for f in aside if f.evidence_ids]
    name = member or root.service
    return Draft(
        kind="diagnosis",
        summary=_summary(name, root, [service for service, _ in symptoms], category, ruled_out, ranking),
        verdict="incident",
        root_cause=RootCause(service=name, category=category, statement=statement, confidence=confidence),
        findings=cited,
        recommendations=_recommendations(root, category, digest),
        open_questions=_open_questions(digest),
        ruled_out=ruled_out,
    )


def _named_first(question: str, unseen: str, target: str) -> bool:
    """Whether the unseen name comes before the known one: the subject, the known one its place."""
    text = question.lower()
    first, known = text.find(unseen.lower()), text.find(target.lower())
    return first >= 0 and (known < 0 or first < known)


def question_scope(request: DiagnoseRequest, stack: MonitoringStack = DEFAULT_STACK) -> str | None:
    """The one system the question is about (named, or owning the alert or metric it names), if any."""
    return _ranked_in_scope(request, stack)[1]


def _ranked_in_scope(request: DiagnoseRequest, stack: MonitoringStack) -> tuple[Ranking, str | None]:
    question = request.route.resolved_query
    focus = question_terms(question) + list(request.route.services)
    asked = stack.asked_about(question_words(question))
    ranking = rank_suspects(
        request.digest,
        focus=focus,
        known=request.services,
        stack=None if asked else stack,
        steady_is_background=bool(HEALTH_CHECK.search(question)),
    )
    named = scoped_service(question, request.route.services, _known(ranking, request), request.digest)
    return ranking, named or dated_system(ranking, question, request.now)


def _known(ranking: Ranking, request: DiagnoseRequest) -> list[str]:
    """Every system the ranking or discovery knows by name (a bare name is often a plain word too:
    "edge request logs" is no question about `vector-edge`)."""
    return [s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]] + list(request.services)


def _root_findings(root: Suspect, ranking: Ranking, digest: Digest) -> list[Finding]:
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
    for pattern in _decisive_changes(root, onset):
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


def _symptom_findings(root: Suspect, ranking: Ranking, focus: Sequence[str]) -> list[tuple[str, Finding]]:
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
        if suspect.errors:
            pattern = max(suspect.errors, key=lambda p: p.count)
            found.append((suspect.service, say.pattern_finding(suspect.service, pattern)))
        elif suspect.alerts:
            # Asked about and only alerted on (a database whose load rose after its cache emptied): what
            # fires there is what the question saw.
            found.append((suspect.service, say.alert_finding(suspect.service, suspect.alerts[:1])))
    return found[:2]


_VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b")


def _decisive_changes(root: Suspect, onset: datetime | None) -> list[LogPattern]:
    """The change lines nearest before the onset, rollouts and version starts first."""
    if onset is None:
        return []
    near = changes_near(root, onset)
    first = min(near, key=lambda p: _stamp(p.first_seen), default=None)
    # A line that names the version it brought says the most ("image .../consumer:3.9.0").
    near.sort(
        key=lambda p: (not ROLLOUT.search(p.example), not _VERSION.search(p.example), -_stamp(p.last_seen))
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


def _category_text(root: Suspect, ranking: Ranking) -> str:
    parts = [f"{p.template} {p.example} {p.reason or ''}" for p in root.errors if not p.origin]
    parts += [f"{g.alertname} {g.summary}" for g in root.alerts]
    # A usage that fell (CPU idle while requests fail elsewhere) is an effect, not the trouble's kind;
    # a falling good (free space, hits) is.
    parts += [
        f"{a.metric} {a.labels.get('reason', '')}"  # the reason a series counts by says what happened
        for a in root.anomalies
        if a.direction == "up" or MORE_IS_BETTER.search(a.metric)
    ]
    # Callers describe how the root looks from outside ("upstream timed out"); their words only
    # decide the category when the root has no errors of its own to say what went wrong.
    if not root.errors:
        parts += [f"{p.template} {p.example}" for p in (*root.blamed_by.values(), *root.relayed_by.values())]
        # A system whose trouble is a change or platform event: the event says what happened.
        parts += [p.example for p in root.changes]
    if root.held_by_sql:
        # A blocker's waiters say what the blocking does to them (lock timeouts, lock waits).
        parts += [" ".join(summary.highlights) for summary in root.held_by_sql]
        waiters = [s for s in [*ranking.ranked, *ranking.herrings] if root.service in s.blames]
        parts += [f"{p.template} {p.example}" for s in waiters for p in s.errors]
    # A failed scrape says how the root looks from outside ("connection refused" by a target that is
    # down is not a slow dependency): its words decide only when nothing else speaks.
    if not parts:
        parts = [p.example for p in root.errors if p.origin]
    # One signal a line: the category is what most signals speak of (`categories.categorize`).
    return "\n".join(part.replace("\n", " ") for part in parts)


def _part_of(name: str, ranked: Sequence[Suspect]) -> bool:
    return any(name.startswith(f"{s.service}-") for s in ranked)


def _alert_only(root: Suspect) -> bool:
    evidence = (
        root.anomalies,
        root.errors,
        root.changes,
        root.held_by_sql,
        root.blamed_by,
        root.relayed_by,
        root.followed_by,
        root.precedes,
    )
    return bool(root.alerts) and not any(evidence)


def _changed(root: Suspect) -> bool:
    return bool(root.onset and changes_near(root, root.onset))


def _asked_alerts_first(root: Suspect, question: str, digest: Digest) -> Suspect:
    """`root` with the alerts the question names first: "why is <the filesystem alert> firing?" on a
    machine where a CPU alert fires too is answered with the filesystem alert and its mountpoint."""
    asked = {g.alertname for g in named_alert_groups(question, digest)}
    alerts = sorted(root.alerts, key=lambda g: g.alertname not in asked)
    return replace(root, alerts=alerts) if alerts != root.alerts else root


def _without_standing_alerts(root: Suspect, ranking: Ranking) -> Suspect:
    """`root` without the alerts that began well before the incident window, when it has other signals."""
    if ranking.window_start is None:
        return root
    since = ranking.window_start - STANDING_BEFORE
    current = [g for g in root.alerts if (began := parse_instant(g.first_started)) is None or began >= since]
    others = root.anomalies or root.errors or root.changes or root.held_by_sql
    return replace(root, alerts=current) if len(current) < len(root.alerts) and others else root


def _statement(
    root: Suspect, ranking: Ranking, category: str, member: str | None = None, *, pod: str | None = None
) -> str:
    """The implicated identity (the `member` of it, when the trouble is one member's; the `pod` of a
    workload where it is confined) and its strongest signals in their own words; the links that tie
    it to the others after them."""
    # Where exactly (instance, mountpoint, database...): an exporter's job name alone names nothing.
    where = say.where_of(root.service, [i for g in root.alerts for i in g.identities], most=1)
    hosts = {p.host for p in root.errors if p.host and p.host != root.service}
    if not where and len(hosts) == 1:
        where = f"host={hosts.pop()}"  # a kernel or syslog stream: the machine its lines came from
    place = ", ".join(
        filter(None, [f"member of {root.service}" if member else "", f"pod {pod}" if pod else "", where])
    )
    at = f" ({place})" if place else ""
    name = member or root.service
    signals = signal_phrases(root, _decisive_changes(root, root.onset), category)
    parts = [f"{name}{at}: " + "; ".join(signals) if signals else f"{name}{at}"]
    if root.alerts and not (root.anomalies or root.errors or root.held_by_sql or root.changes):
        parts.append("its cause is not established beyond the alert")
    if root.blamed_by:
        parts.append("errors in " + ", ".join(sorted(root.blamed_by)) + f" name {root.service} upstream")
    if root.relayed_by:
        callers = ", ".join(sorted(root.relayed_by))
        parts.append(f"errors in {callers} fail at their upstream the same way")
    if root.followed_by:
        later = ", ".join(sorted(root.followed_by))
        parts.append(f"the same kind of trouble in {later} began after it")
    if root.held_by_sql:
        sources = sorted({summary.datasource for summary in root.held_by_sql})
        parts.append(f"{', '.join(sources)} names {root.service} as the session blocking the others")
    if _changed(root):
        parts.append(f"a change to {root.service} came shortly before the trouble")
    if ranking.unrelated:
        parts.append(_unrelated_clause(ranking))
    return "; ".join(parts) + "."


def _summary(
    name: str,
    root: Suspect,
    symptoms: Sequence[str],
    category: str,
    ruled_out: Sequence[RuledOut],
    ranking: Ranking,
) -> str:
    # Only services a finding cites evidence for: the summary asserts nothing the findings do not.
    text = f"Root cause: {name} ({category.replace('_', ' ')})."
    affected = sorted(pointed_at_by(root) | set(symptoms))
    if affected:
        text += " Also affected: " + ", ".join(affected) + "."
    if ranking.unrelated:
        text += " " + _unrelated_clause(ranking).capitalize() + "."
    # A separate incident is named in its own sentence, not among the dismissed signals.
    dismissed = [item.service for item in ruled_out if item.service not in _services(ranking.unrelated)]
    if dismissed:
        text += " Ruled out: " + ", ".join(dismissed) + "."
    return text


def _ruled_out(herring: Suspect, root: Suspect) -> RuledOut:
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


def _services(suspects: Sequence[Suspect]) -> set[str]:
    return {s.service for s in suspects}


def _unrelated_clause(ranking: Ranking) -> str:
    others = ", ".join(s.service for s in ranking.unrelated)
    return f"also happening, unrelated to it: the incident in {others}"


def _unrelated(other: Suspect, root: Suspect) -> RuledOut:
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


def _aside_findings(suspect: Suspect, digest: Digest) -> list[Finding]:
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


def _recommendations(root: Suspect, category: str, digest: Digest) -> list[Recommendation]:
    recs = [Recommendation(action=f"{root.service}: {CATEGORY_ADVICE[category]}")]
    cues = {root.service.lower(), *category.split("_")}
    passages = [
        p for p in digest.runbooks if any(c in f"{p.file} {p.heading} {p.excerpt}".lower() for c in cues)
    ]
    for passage in passages[:MAX_RECOMMENDED_RUNBOOKS]:
        recs.append(
            Recommendation(action=f"Follow the runbook section '{passage.heading}'.", runbook=passage.file)
        )
    return recs


def _open_questions(digest: Digest) -> list[str]:
    missing = sorted({gap.source for gap in digest.gaps})
    if not missing:
        return []
    return ["Some evidence was unavailable (" + ", ".join(missing) + "); the diagnosis may be incomplete."]
