"""A system whose only trouble is that its metrics stopped arriving (its scrape's `up` fell to 0, an
alert that it cannot be reached, its series silent) while its own log stream keeps coming as it did
before: it is not shown down, its scrape fails (a timeout, a changed port, a network policy). What is
missing is its metrics, so the verdict is inconclusive and says which; never "down" on the word of the
scraper alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from graph.analysts.base import Draft, Finding
from graph.analysts.rules import findings as say
from graph.analysts.rules.suspect import Suspect, instant
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

# Lines this close to now say the stream still flows.
STILL_LOGGING = timedelta(minutes=10)
# The scrape's own series (`up`, `scrape_duration_seconds`, `scrape_samples_scraped`): the scraper's
# view of the target, not the target's view of itself.
_SCRAPE_SERIES = re.compile(r"^(?:up|scrape_[a-z_]+)$")
# An alert about reaching a target (named for a target or an instance being down, "targets are unreachable").
_TARGET_ALERT = re.compile(r"target|scrape|instance\s?down|unreachable", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ScrapeGap:
    """When a system's metrics stopped, and its busiest own pattern that kept coming after."""

    stopped: datetime
    alive: LogPattern


def scrape_gap(suspect: Suspect, digest: Digest, now: datetime | None) -> ScrapeGap | None:
    """The gap in a system's metrics, when that is all its trouble is; None when its logs stopped too,
    or new errors began with it."""
    began = _metrics_stopped(suspect)
    if began is None or now is None:
        return None
    if any(
        (first := instant(p.first_seen)) is not None and first >= began - STILL_LOGGING
        for p in suspect.errors
    ):
        return None  # errors that began with the gap: the system itself is in trouble
    own = [p for p in digest.log_patterns if p.service == suspect.service]
    flowing = [
        p
        for p in own
        if (first := instant(p.first_seen)) is not None
        and (last := instant(p.last_seen)) is not None
        and first < began
        and now - last <= STILL_LOGGING
    ]
    return ScrapeGap(began, max(flowing, key=lambda p: p.count)) if flowing else None


def gap_draft(suspect: Suspect, gap: ScrapeGap) -> Draft:
    """Inconclusive: the system's metrics are missing since they stopped; its lines say it still runs."""
    since = gap.stopped.strftime("%Y-%m-%dT%H:%M:%SZ")
    name = suspect.service
    alerts = ", ".join(sorted({g.alertname for g in suspect.alerts}))
    pattern = gap.alive
    # No apostrophe ("x's metrics"): the evidence guard reads the text between two as a quoted claim.
    summary = (
        f"Inconclusive: the metrics of {name} stopped arriving at {since}"
        + (f" (alert {alerts} firing: its scrape fails)" if alerts else " (its scrape fails)")
        + f"; its own logs keep coming (last line at {pattern.last_seen}), so it is not shown down. "
        f"Missing: the metrics of {name} since {since}."
    )
    found: list[Finding] = []
    if suspect.alerts:
        found.append(say.alert_finding(name, suspect.alerts))
    found += [say.anomaly_finding(a) for a in suspect.anomalies[:3]]
    found.append(
        Finding(
            statement=f"{name} kept logging after its metrics stopped: {pattern.count} lines like "
            f'"{say.quote(pattern.example)}" through {pattern.last_seen}.',
            evidence_ids=[pattern.evidence_id],
        )
    )
    return Draft(
        summary=summary,
        verdict="inconclusive",
        findings=found,
        open_questions=[
            f"Why does the scrape of {name} fail (its scrape duration against the timeout, its port, "
            "the network between it and Prometheus)?"
        ],
    )


def _metrics_stopped(suspect: Suspect) -> datetime | None:
    """When the system's metrics stopped, when every signal it has is about that: the scrape's own
    series falling or its series going silent, alerts about reaching it."""
    moves = [a for a in suspect.anomalies if not _stopped(a)]
    alerts = [g for g in suspect.alerts if not _about_reaching(g)]
    if moves or alerts or not (suspect.anomalies or suspect.alerts):
        return None
    times = [instant(a.change_at) for a in suspect.anomalies]
    times += [instant(g.first_started) for g in suspect.alerts]
    return min((t for t in times if t is not None), default=None)


def _stopped(anomaly: MetricAnomaly) -> bool:
    """A series gone silent, or the scrape's own view of the target (`up` fell, scrapes took longer)."""
    scrape = _SCRAPE_SERIES.match(anomaly.metric) is not None
    return anomaly.event == "silent" or (scrape and (anomaly.metric != "up" or anomaly.direction == "down"))


def _about_reaching(group: AlertGroup) -> bool:
    return bool(_TARGET_ALERT.search(group.alertname) or _TARGET_ALERT.search(group.summary or ""))
