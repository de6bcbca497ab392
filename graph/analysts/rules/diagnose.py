"""Rule-based diagnosis: the top-ranked suspect is the root cause; findings cite the facts that say so.

No trouble in the digest means "no incident found" and no root cause, never an invented one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta

from graph.analysts.base import DiagnoseRequest, Draft, Recommendation, RootCause, RuledOut
from graph.analysts.past import asks_past_cause
from graph.analysts.rules import findings as say
from graph.analysts.rules.advice import CATEGORY_ADVICE
from graph.analysts.rules.categories import categorize
from graph.analysts.rules.dated import dated_system
from graph.analysts.rules.diagnosis_findings import (
    aside_findings,
    decisive_changes,
    herring_ruled_out,
    root_findings,
    separate_ruled_out,
    symptom_findings,
)
from graph.analysts.rules.links import link_same_machine, pointed_at_by
from graph.analysts.rules.members import member_series, software_host, trouble_member, trouble_pod
from graph.analysts.rules.route import question_terms
from graph.analysts.rules.scope import (
    doubted,
    named_alert_groups,
    scoped_service,
    separate_incidents,
    unseen_systems,
)
from graph.analysts.rules.scoring import changes_near
from graph.analysts.rules.scrape_gap import gap_draft, scrape_gap
from graph.analysts.rules.statement import callers_phrase, signal_phrases
from graph.analysts.rules.suspect import Ranking, Suspect
from graph.analysts.rules.suspects import rank_suspects
from graph.analysts.rules.upstream import changed_caller_first, furthest_cause_first, scope_ranking
from graph.analysts.rules.verdict import alert_draft, quiet_draft, recovered, troubled, unseen_draft
from graph.analysts.rules.vocabulary import CONFIG_CHANGE, HEALTH_CHECK, MORE_IS_BETTER, ROLLOUT
from tools.digest.labels import parse_instant
from tools.facts import Digest
from tools.prometheus.discovery import DEFAULT_STACK, MonitoringStack, question_words

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
    else:
        ranking = changed_caller_first(furthest_cause_first(ranking, digest), digest)
    now = parse_instant(request.now)
    current = [s for s in ranking.ranked if not recovered(s, now)]
    # A restart is over with the trouble it began: a cache that came back empty while its database is
    # still overloaded is the cause of what is going on now.
    current = [s for s in ranking.ranked if s in current or (current and s.restarts())]
    if not any(troubled(s) for s in current):
        # Left with changes and good news only (storage extended after the trouble that needed it, a
        # deploy): the trouble they came near is over, so nothing is an incident now.
        current = []
    over = not current and asks_past_cause(question) and any(troubled(s) for s in ranking.ranked)
    if over:
        # "What caused the pages last night?" about trouble that has ended: its cause is the answer,
        # and the verdict says nothing is wrong now.
        current = ranking.ranked
    if not current:
        return quiet_draft(request, ranking, past=ranking.ranked, target=target)
    if len(current) < len(ranking.ranked):
        ranking = replace(ranking, ranked=current)
    ruled = doubted(question, ranking.ranked, focus)  # asked whether it did it, and it did not
    separate = [s for s in separate_incidents(ranking.ranked) if s not in ruled] if target is None else []
    ruled += separate
    if ruled:
        # A separate trouble: named beside the root, with what its callers say of it.
        kept = [s for s in ranking.ranked if s not in ruled]
        ranking = replace(ranking, ranked=kept, unrelated=[*ranking.unrelated, *ruled])
    root = ranking.ranked[0]
    if (gap := scrape_gap(root, digest, now)) is not None:
        return gap_draft(root, gap)  # its metrics stopped, its lines did not
    if _alert_only(root):
        link_same_machine(root, [*ranking.ranked, *ranking.herrings, *ranking.quiet, *ranking.unrelated])
    if _alert_only(root):
        # A firing alert and nothing else about its system: an incident whose cause is not established.
        draft = alert_draft(request, root.alerts, replace(ranking, ranked=ranking.ranked[1:]))
        return draft.model_copy(
            update={"ruled_out": [separate_ruled_out(o, root) for o in ranking.unrelated]}
        )
    symptoms = symptom_findings(root, ranking, focus)
    findings = root_findings(root, ranking, digest) + [finding for _, finding in symptoms]
    # A separate incident the answer names is shown with its own evidence, like anything it asserts
    # (and adds nothing to the confidence in this one's cause).
    aside = [f for other in ranking.unrelated for f in aside_findings(other, digest)]
    decisive = decisive_changes(root, root.onset)
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
    ruled_out = [herring_ruled_out(h, root) for h in ranking.herrings if h not in parts]
    # A second incident beside this one is named as also happening; it is ruled out only as the cause
    # of what a scoped question asked about.
    ruled_out += [separate_ruled_out(other, root) for other in ranking.unrelated if other not in separate]
    # A system of several members whose trouble is one member's is named by that member; a system
    # known only by its software's name, by the machine it runs on (unless the question calls it so).
    # A failover is the whole set's: the member whose series moved is the new primary taking the load.
    member = None
    if category != "failover":
        # A question calling it by its job keeps that name, unless it names the machine too (an
        # alert group's "on node (job=node instance=vm-7)"): the machine is what it means.
        host = software_host(root)
        asked_host = host is not None and host.lower() in question.lower()
        member = trouble_member(root, digest) or (host if root.service not in focus or asked_host else None)
    statement = _statement(told, ranking, category, member, pod=None if member else trouble_pod(root))
    if member is not None:
        # The member the answer is named for is shown with a series of its own, read in this run.
        shown = {i for f in cited for i in f.evidence_ids}
        own = [a for a in member_series(root, member)[:1] if a.evidence_id not in shown]
        cited += [say.anomaly_finding(a) for a in own]
    confidence = min(0.9, 0.4 + 0.1 * len({i for f in cited for i in f.evidence_ids}))
    cited += [f for f in aside if f.evidence_ids]
    name = member or root.service
    summary = _summary(name, root, [service for service, _ in symptoms], category, ruled_out, ranking)
    return Draft(
        kind="diagnosis",
        summary=f"{summary} It is over: nothing is abnormal now." if over else summary,
        verdict="healthy" if over else "incident",
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
    return ranking, named or dated_system(ranking, question, request.now, request.digest)


def _known(ranking: Ranking, request: DiagnoseRequest) -> list[str]:
    """Every system the ranking or discovery knows by name (a bare name is often a plain word too:
    "edge request logs" is no question about `vector-edge`)."""
    return [s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]] + list(request.services)


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
    signals = signal_phrases(root, decisive_changes(root, root.onset), category)
    parts = [f"{name}{at}: " + "; ".join(signals) if signals else f"{name}{at}"]
    if root.alerts and not (root.anomalies or root.errors or root.held_by_sql or root.changes):
        parts.append("its cause is not established beyond the alert")
    if root.blamed_by:
        named = "errors in " + ", ".join(sorted(root.blamed_by)) + f" name {root.service} upstream"
        # Known only by its callers' lines (a third party): their strongest says what it does to them.
        if signals:
            parts.append(named)
        else:
            parts[0] = f"{parts[0]}: {named}: {callers_phrase(root)}"
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


def _services(suspects: Sequence[Suspect]) -> set[str]:
    return {s.service for s in suspects}


def _unrelated_clause(ranking: Ranking) -> str:
    others = ", ".join(s.service for s in ranking.unrelated)
    return f"also happening, unrelated to it: the incident in {others}"


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
