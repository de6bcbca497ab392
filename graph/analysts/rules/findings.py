"""Sentences about digest facts that cite their evidence and state only what that evidence holds."""

from __future__ import annotations

from graph.analysts.base import Finding
from tools.facts import AlertGroup, CaseClue, LogPattern, MetricAnomaly, SqlSummary

MAX_QUOTE = 120


def number(value: float) -> str:
    """Four significant digits: close enough for the guard's rounding tolerance, short to read."""
    if value == int(value) and abs(value) < 1e12:
        return str(int(value))
    return f"{value:.4g}"


def quote(text: str) -> str:
    """A verbatim slice of a log line, cut at a word boundary so it stays a substring of the evidence."""
    text = " ".join(text.split())
    if len(text) <= MAX_QUOTE:
        return text
    return text[:MAX_QUOTE].rsplit(" ", 1)[0]


def alert_finding(service: str, groups: list[AlertGroup]) -> Finding:
    named = ", ".join(
        f"{g.alertname} ({g.severity or 'unknown severity'}, since {g.first_started})" for g in groups[:4]
    )
    return Finding(
        statement=f"Firing alerts on {service}: {named}.",
        evidence_ids=sorted({g.evidence_id for g in groups[:4]}),
    )


def anomaly_finding(anomaly: MetricAnomaly) -> Finding:
    where = anomaly.labels.get("instance") or anomaly.service or "the series"
    verb = "rose" if anomaly.direction == "up" else "fell"
    return Finding(
        statement=(
            f"{anomaly.metric} on {where} {verb} from {number(anomaly.baseline)} to "
            f"{number(anomaly.recent)} (peak {number(anomaly.peak)}) starting {anomaly.change_at}."
        ),
        evidence_ids=[anomaly.evidence_id],
    )


def pattern_finding(service: str, pattern: LogPattern) -> Finding:
    level = (pattern.level or "log").upper()
    return Finding(
        statement=(
            f'{service} logged {pattern.count} {level} lines like "{quote(pattern.example)}" '
            f"from {pattern.first_seen} to {pattern.last_seen}."
        ),
        evidence_ids=[pattern.evidence_id],
    )


def blame_finding(downstream: str, upstream: str, pattern: LogPattern) -> Finding:
    return Finding(
        statement=(
            f"{downstream} errors name {upstream} as the failing dependency: "
            f'"{quote(pattern.example)}" (first seen {pattern.first_seen}).'
        ),
        evidence_ids=[pattern.evidence_id],
    )


def change_finding(service: str, pattern: LogPattern) -> Finding:
    return Finding(
        statement=(
            f"{service} recorded a change shortly before the trouble began: "
            f'"{quote(pattern.example)}" at {pattern.first_seen}.'
        ),
        evidence_ids=[pattern.evidence_id],
    )


def sql_finding(summary: SqlSummary) -> Finding:
    # Categorical facts ("state=x (40 of 50 rows)") summarise every row: they come first.
    ranked = sorted(summary.highlights, key=lambda h: " of " not in h)
    facts = "; ".join(ranked[:4])
    return Finding(
        statement=f"Datasource {summary.datasource} shows: {facts}.",
        evidence_ids=[summary.evidence_id],
    )


def case_finding(service: str, clue: CaseClue) -> Finding:
    return Finding(
        statement=f"A similar past case also pointed at {service} (a clue, not proof).",
        evidence_ids=[clue.evidence_id],
    )
