"""The verdict when the ranking names no incident: an unexplained firing alert, inconclusive, or healthy.

A firing alert that no operator muted is never "healthy": when nothing else explains it, the answer
says it fires and that its cause is not established, with what was checked. Key sources that could
not answer make the verdict inconclusive, naming them. Only when they answered and nothing is abnormal
now is the system healthy; trouble that ended (errors that stopped long before now) is said to have
recovered, not blamed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from graph.analysts.base import DiagnoseRequest, Draft, EvidenceRef, Finding, Recommendation
from graph.analysts.rules import findings as say
from graph.analysts.rules.dark import dark_draft
from graph.analysts.rules.suspect import Ranking, Suspect, troubling
from graph.analysts.rules.vocabulary import heartbeat, load_move
from tools.digest.labels import parse_instant
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly
from tools.toolbox.catalog import DISCOVERY_TOOLS

# Trouble whose last sign is this long before now has ended: a recovered incident, not a current one.
RECOVERED_AFTER = timedelta(minutes=10)
KEY_SOURCES = ("alerts", "metrics", "logs")
FLAPPING_EPISODES = 3  # an alert that fired this often in the history window flaps
# Metric tools that list names or targets: they answer, but show no series to judge by.
_LISTING_TOOLS = frozenset({"list_metrics", "list_targets"})


def unexplained_alerts(digest: Digest) -> list[AlertGroup]:
    """Firing groups no operator muted: each is trouble until evidence says otherwise. A heartbeat
    is no trouble: it fires to prove the alerting pipeline works."""
    return [
        g
        for g in digest.alert_groups
        if g.status in ("firing", "active") and not g.all_muted and not heartbeat(g)
    ]


def missing_sources(evidence: Sequence[EvidenceRef]) -> list[str]:
    """Key sources that were asked and could not answer, or (metrics) answered without any series."""
    missing: list[str] = []
    for source in KEY_SOURCES:
        items = [e for e in evidence if e.source == source]
        if not items:
            continue  # not configured here: nothing was expected of it
        answered = [e for e in items if e.status in ("OK", "EMPTY")]
        if not answered:
            missing.append(f"{source} (could not be read)")
        elif not [e for e in items if e.status == "OK"] and any(e.tool in DISCOVERY_TOOLS for e in items):
            # Its listing found not one stream or name, and no read found anything: a source that
            # holds nothing tells nothing.
            missing.append(f"{source} (returned nothing at all)")
        elif source == "metrics" and not [
            e for e in answered if e.status == "OK" and e.tool not in _LISTING_TOOLS
        ]:
            missing.append("metrics (no series returned)")
    return missing


def recovered(suspect: Suspect, now: datetime | None) -> bool:
    """Whether everything troubling `suspect` ended long before now: error lines (its own, or
    others' naming it: a mesh proxy's "failed to connect to X" that stopped with the outage) that
    stopped, series back at their baseline, restarts."""
    # Lines as steady through the read as before it (a rate-limit warning now and then) are its
    # background, not the trouble that stopped or goes on.
    signs = [
        *(p for p in suspect.errors if not p.steady),
        *suspect.blamed_by.values(),
        *suspect.relayed_by.values(),
    ]
    # A move the series came back from, a restart and a load moved between members (a failover) are
    # over too; any other move is current.
    past = [a for a in suspect.anomalies if a.event in ("ended", "restart", "moved")]
    # What is still moving is no trouble when it is good news or more work done (a broker back from a
    # restart taking its share of the traffic again).
    current = [a for a in suspect.anomalies if a not in past and _trouble_now(a)]
    if now is None or suspect.alerts or current or suspect.held_by_sql:
        return False
    if not (signs or past):
        return False
    ends = [parse_instant(p.last_seen) for p in signs]
    ends += [parse_instant(a.ended_at or a.change_at) for a in past]
    return all(end is not None and now - end >= RECOVERED_AFTER for end in ends)


def troubled(suspect: Suspect) -> bool:
    """Whether `suspect` shows trouble of its own or from its callers: an alert, error lines, a
    blocking session or a troubling move; changes, restarts, good news and a system less busy (its
    load fell when a nightly job ended) alone are none."""
    moving = any(_trouble_now(a) and a.event not in ("restart", "moved") for a in suspect.anomalies)
    callers = suspect.blamed_by or suspect.relayed_by
    return bool(suspect.alerts or suspect.errors or suspect.held_by_sql or callers or moving)


def _trouble_now(anomaly: MetricAnomaly) -> bool:
    """A troubling move that is not a system doing more work or being less busy (its load fell)."""
    return troubling(anomaly) and not load_move(anomaly.metric, anomaly.direction)


def quiet_draft(
    request: DiagnoseRequest, ranking: Ranking, past: Sequence[Suspect] = (), target: str | None = None
) -> Draft:
    """The draft when no suspect is a current incident; `past` are suspects whose trouble ended.
    With a `target` (what the question names) only its alerts count; the rest is "also happening"."""
    draft = _quiet(request, past, target)
    # Trouble elsewhere that is over too (a burst of 503s forty minutes ago) is not happening.
    now = parse_instant(request.now)
    ranking = replace(ranking, unrelated=[s for s in ranking.unrelated if not recovered(s, now)])
    also = also_happening(request.digest, ranking, target)
    if not also:
        return draft
    return draft.model_copy(update={"summary": f"{draft.summary} Also happening: {also}."})


def alert_draft(request: DiagnoseRequest, groups: Sequence[AlertGroup], ranking: Ranking) -> Draft:
    """The answer about alerts the question names that no system owns: they fire, their cause is not
    established, and whatever else is wrong is listed beside them."""
    draft = _alert_unexplained(
        groups, _checked(request.evidence), _open_questions(request), missing_sources(request.evidence)
    )
    others = ", ".join(s.service for s in [*ranking.ranked, *ranking.unrelated][:3])
    if not others:
        return draft
    return draft.model_copy(update={"summary": f"{draft.summary} Also happening: {others}."})


def unseen_draft(request: DiagnoseRequest, unseen: Sequence[str], ranking: Ranking) -> Draft:
    """The answer about a system no alert, series or log line names: inconclusive, with what was
    read, and whatever else is wrong listed beside it."""
    checked = _checked(request.evidence)
    looked = ", ".join(sorted({e.source for e in checked})) or "no source"
    names = ", ".join(unseen)
    summary = (
        f"Inconclusive: no alert, metric series or log line names {names} (checked {looked}); "
        "its health cannot be judged from this evidence."
    )
    others = ", ".join(s.service for s in [*ranking.ranked, *ranking.unrelated][:3])
    if others:
        summary += f" Also happening: {others}."
    return Draft(
        summary=summary,
        verdict="inconclusive",
        findings=[_calm(checked)] if checked else [],
        open_questions=[f"Where does {names} send its metrics and logs?", *_open_questions(request)],
    )


def also_happening(digest: Digest, ranking: Ranking, target: str | None) -> str:
    """Other concurrent problems, named with their alerts, when the question scoped to `target`."""
    if target is None:
        return ""
    names = [s.service for s in ranking.unrelated]
    names += [g.service or g.alertname for g in unexplained_alerts(digest) if g.service != target]
    alerts = {g.service: g.alertname for g in unexplained_alerts(digest) if g.service}
    shown = [f"{name} (alert {alerts[name]})" if name in alerts else name for name in dict.fromkeys(names)]
    return ", ".join(shown[:4])


def _quiet(request: DiagnoseRequest, past: Sequence[Suspect], target: str | None) -> Draft:
    digest = request.digest
    checked = _checked(request.evidence)
    firing = [g for g in unexplained_alerts(digest) if target is None or g.service == target]
    if firing:
        return _alert_unexplained(
            firing, checked, _open_questions(request), missing_sources(request.evidence)
        )
    if target is not None and (dark := dark_draft(target, digest, checked, parse_instant(request.now))):
        return dark
    missing = missing_sources(request.evidence)
    if missing or not checked:
        what = ", ".join(missing) or "alerts, metrics and logs (none could be read)"
        return Draft(
            summary=f"Inconclusive: no trouble was found, but {what}; the system cannot be called healthy.",
            verdict="inconclusive",
            findings=[_calm(checked)] if checked else [],
            open_questions=[f"Missing evidence: {what}."],
        )
    recoveries = [say.recovered_finding(s.service, p) for s in past for p in _last_errors(s)]
    resolved = [g for g in resolved_alerts(digest) if target is None or g.service == target]
    about = f"No incident found: {target} shows" if target else "No incident found:"
    # Firing but muted by an operator (a silence with its reason) or by another alert: known, and
    # said so, since the question may be about exactly that alert.
    muted = [g for g in _muted_alerts(digest) if target is None or g.service == target][:2]
    alerts = "no unmuted firing alerts" if muted else "no firing alerts"
    text = f"{about} {alerts}, no metric moved beyond its own normal variability"
    text += ", and no error pattern is current."
    if muted:
        text += " " + "; ".join(_muted_phrase(g) for g in muted) + "."
    if resolved:
        text += " " + "; ".join(_resolved_phrase(g) for g in resolved[:3]) + "; nothing is abnormal now."
    # One per metric (the same move on every replica says one thing), the strongest three.
    moves = {
        m.anomaly.metric: m for m in reversed(digest.routine) if target is None or m.anomaly.service == target
    }
    routine = sorted(moves.values(), key=lambda m: -m.anomaly.score)[:3]
    if routine:
        moved = ", ".join(f"{m.anomaly.metric} of {m.anomaly.service or 'a series'}" for m in routine)
        text += f" {moved} moved as at the same hour the day before: the daily rhythm."
    if recoveries:
        text += (
            " Earlier trouble ended: " + ", ".join(s.service for s in past) + " (nothing is abnormal now)."
        )
    return Draft(
        summary=text,
        verdict="healthy",
        findings=[
            _calm(checked),
            *[say.alert_finding(_where(g), [g]) for g in muted],
            *[_resolved_finding(g) for g in resolved[:3]],
            *[say.routine_finding(m) for m in routine],
            *recoveries,
        ],
        open_questions=_open_questions(request),
        ruled_out=[],
    )


def _blind(checked: Sequence[EvidenceRef], missing: Sequence[str]) -> bool:
    """Whether a source is missing and nothing but the alerts themselves was seen: no line, and no
    series beyond the alerts' own history."""
    lines = any(e.source == "logs" and e.status == "OK" for e in checked)
    series = any(
        e.source == "metrics"
        and e.status == "OK"
        and e.tool not in _LISTING_TOOLS
        and e.tool != "alert_history"
        for e in checked
    )
    return bool(missing) and not lines and not series


def _named_in(source: str, missing: Sequence[str]) -> bool:
    return any(m.startswith(f"{source} ") for m in missing)


def _alert_unexplained(
    groups: Sequence[AlertGroup], checked: Sequence[EvidenceRef], questions: list[str], missing: Sequence[str]
) -> Draft:
    """`alert X is firing on Y; its cause is not established`, with what was checked."""
    first = groups[0]
    where = _where(first)
    sources = sorted({e.source for e in checked if e.source != "alerts" and not _named_in(e.source, missing)})
    looked = ", ".join(sources) or "no other source"
    statement = (
        f"Alert {first.alertname} is firing on {where}"
        + (f' ("{say.quote(first.summary)}")' if first.summary else "")
        + f"; its cause is not established: {looked} showed no anomaly, error pattern or change "
        "that explains it."
    )
    blind = _blind(checked, missing)
    if blind:
        missing = [*missing, *([] if _named_in("metrics", missing) else ["metrics (no series returned)"])]
        # Nothing to judge the alert by: not an incident without a cause, an answer still missing.
        statement = (
            f"Alert {first.alertname} is firing on {where}"
            + (f' ("{say.quote(first.summary)}")' if first.summary else "")
            + f"; inconclusive: {', '.join(missing)}, so its cause cannot be judged."
        )
    flapping = first.episodes >= FLAPPING_EPISODES
    if flapping:
        statement += (
            f" It has fired {first.episodes} times in the last hours: a rule that flaps, more likely "
            "noise than a new incident."
        )
    others = [g.alertname for g in groups[1:4]]
    summary = statement + (f" Also firing: {', '.join(others)}." if others else "")
    # An incident without a root cause: the alert is real trouble, but nothing says what causes it.
    return Draft(
        summary=summary,
        verdict="inconclusive" if blind else "incident",
        findings=[
            say.alert_finding(where, list(groups)),
            *([_calm(checked)] if checked else []),
            *([_flapping_finding(first)] if flapping else []),
        ],
        recommendations=[
            Recommendation(
                action=f"Read the rule of {first.alertname} and the series it evaluates on {where}."
            )
        ],
        open_questions=[*questions, f"What makes {first.alertname} fire on {where}?"],
    )


def resolved_alerts(digest: Digest) -> list[AlertGroup]:
    """Alerts the history shows fired in the last hours and have since resolved, latest first."""
    ended = [g for g in digest.alert_groups if g.status == "resolved" and g.ended_at and g.first_started]
    return sorted(ended, key=lambda g: g.ended_at or "", reverse=True)


def _muted_alerts(digest: Digest) -> list[AlertGroup]:
    return [g for g in digest.alert_groups if g.status in ("firing", "active") and g.all_muted]


def _where(group: AlertGroup) -> str:
    return group.service or say.where_of("", group.identities, most=1) or "an unnamed target"


def _muted_phrase(group: AlertGroup) -> str:
    where = f" on {group.service}" if group.service else ""
    how = "silenced by an operator" if group.silenced else "inhibited by another alert"
    return f"{group.alertname}{where} is firing but {how}: known, not new trouble"


def _resolved_phrase(group: AlertGroup) -> str:
    where = f" on {group.service}" if group.service else ""
    return f"{group.alertname}{where} fired at {group.first_started} and resolved at {group.ended_at}"


def _resolved_finding(group: AlertGroup) -> Finding:
    times = f" (it fired {group.episodes} times in the last hours)" if group.episodes > 1 else ""
    return Finding(
        statement=f"Alert {_resolved_phrase(group)}{times}.",
        evidence_ids=[group.history_id or group.evidence_id],
    )


def _flapping_finding(group: AlertGroup) -> Finding:
    return Finding(
        statement=f"Alert {group.alertname} fired {group.episodes} times in the last hours.",
        evidence_ids=[group.history_id or group.evidence_id],
    )


def _calm(checked: Sequence[EvidenceRef]) -> Finding:
    sources = ", ".join(sorted({e.source for e in checked}))
    return Finding(
        statement=f"Checked {sources}: no metric moved beyond its own normal variability and no "
        "error pattern is current.",
        evidence_ids=[e.id for e in checked[:6]],
    )


def _checked(evidence: Sequence[EvidenceRef]) -> list[EvidenceRef]:
    return [e for e in evidence if e.source in KEY_SOURCES and e.status in ("OK", "EMPTY")]


def _last_errors(suspect: Suspect) -> list[LogPattern]:
    return sorted(suspect.errors, key=lambda p: -p.count)[:1]


def _open_questions(request: DiagnoseRequest) -> list[str]:
    missing = sorted({gap.source for gap in request.digest.gaps})
    if not missing:
        return []
    return ["Some evidence was unavailable (" + ", ".join(missing) + "); the diagnosis may be incomplete."]
