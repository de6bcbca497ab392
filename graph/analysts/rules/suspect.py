"""A candidate root cause (`Suspect`: everything the digest says about one system) and the ranking of
them (`Ranking`), with the time and metric helpers the ranking and the links share."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from graph.analysts.rules.vocabulary import BAD_SIGNAL, improving
from tools.facts import AlertGroup, LogPattern, MetricAnomaly, SqlSummary

CLUSTER_SPAN = timedelta(minutes=30)
MIN_PATTERN_COUNT = 3
MINOR_SHARE = 10  # a pattern under a tenth of the suspect's largest is a stray beside its surge
# Alert labels that say how bad, not what about.
NOT_IDENTITY = frozenset({"alertname", "severity"})


@dataclass(slots=True)
class Suspect:
    """Everything the digest says about one service."""

    service: str
    anomalies: list[MetricAnomaly] = field(default_factory=list)
    errors: list[LogPattern] = field(default_factory=list)  # error and warning patterns
    changes: list[LogPattern] = field(default_factory=list)  # deploy, version, config lines
    alerts: list[AlertGroup] = field(default_factory=list)  # firing groups
    blamed_by: dict[str, LogPattern] = field(default_factory=dict)  # other service -> its pattern
    addressed_by: dict[str, str] = field(default_factory=dict)  # those naming only its address -> it
    job_named_by: dict[str, str] = field(default_factory=dict)  # those naming only its scrape job -> the job
    # Other services whose errors fail on the far side of a call the way this one's signals say it
    # fails, without naming it (a proxy's "handshake to upstream 10.1.9.20 failed") -> their pattern.
    relayed_by: dict[str, LogPattern] = field(default_factory=dict)
    # Other systems whose trouble of the same specific kind (disk I/O, a full disk, a pool) began
    # after this one's, naming no one: a device failing before the app that writes to it slows.
    followed_by: dict[str, LogPattern] = field(default_factory=dict)
    blames: set[str] = field(default_factory=set)
    held_by_sql: list[SqlSummary] = field(default_factory=list)  # results naming it as the blocker
    precedes: set[str] = field(default_factory=set)  # services whose errors began after its signals
    # Known only by the host its callers' failing calls name (a third party's API: `rules.external`).
    external: bool = False
    # Callers whose errors quote what its firing alert names ("> 'maxmemory'": `rules.objects`).
    alert_quoted_by: set[str] = field(default_factory=set)
    onset: datetime | None = None  # earliest trouble inside the incident window
    score: float = 0.0

    def label_sets(self) -> list[dict[str, str]]:
        """The labels of its moving series and firing alerts."""
        return [*(a.labels for a in self.anomalies), *(g.labels for g in self.alerts)]

    def restarts(self) -> list[datetime]:
        """When its processes started again (an age or start-time series says so): changes, like a
        deploy line, and no incident of their own."""
        return sorted(t for a in self.anomalies if a.event == "restart" and (t := instant(a.change_at)))

    def change_times(self) -> list[datetime]:
        """When it changed: its change lines first seen and its restarts, earliest first."""
        lines = [t for p in self.changes if (t := instant(p.first_seen)) is not None]
        return sorted([*lines, *self.restarts()])

    def events(self) -> list[datetime]:
        """When each piece of trouble about this service began."""
        times = [instant(a.change_at) for a in self.anomalies if troubling(a)]
        times += [instant(g.first_started) for g in self.alerts]
        # Its trouble begins with its main patterns: three stray timeouts an hour before a surge of
        # sixty refusals began nothing (and would put the caller's onset before its cause's).
        top = max((p.count for p in self.errors), default=0)
        times += [
            instant(p.first_seen)
            for p in self.errors
            if p.count >= MIN_PATTERN_COUNT and p.count * MINOR_SHARE >= top
        ]
        # Being named by another service's errors is trouble too, even without telemetry of one's own.
        times += [instant(p.first_seen) for p in self.blamed_by.values() if p.count >= MIN_PATTERN_COUNT]
        return sorted(t for t in times if t is not None)


@dataclass(frozen=True, slots=True)
class Ranking:
    """Suspects in the incident (best first), red herrings, and the window the incident began in."""

    ranked: list[Suspect]
    herrings: list[Suspect]
    window_start: datetime | None
    unrelated: list[Suspect] = field(default_factory=list)  # a separate incident, set aside by scope
    quiet: list[Suspect] = field(default_factory=list)  # bystanders with signals only, not worth naming
    aliases: dict[str, str] = field(default_factory=dict)  # bare name -> namespaced system (`vault`)


def troubling(anomaly: MetricAnomaly) -> bool:
    """A shift in a trouble-sounding metric, or a large shift in any metric; never a move its name
    says is good news (free space growing back, errors falling): that is a recovery."""
    if improving(anomaly.metric, anomaly.direction):
        return False
    # A move that is over is judged by how far it went (its `recent` is the level it came back to).
    ratio = anomaly.ratio if anomaly.event != "ended" else _peak_ratio(anomaly)
    return bool(BAD_SIGNAL.search(anomaly.metric)) or ratio >= 5 or ratio <= 0.2


def _peak_ratio(anomaly: MetricAnomaly) -> float:
    return anomaly.peak / anomaly.baseline if anomaly.baseline else anomaly.ratio


def instant(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


# A label that names a resource in a vendor's spelling (`function_name`, `TableName`, `DBInstanceIdentifier`).
_RESOURCE_NAME_KEY = re.compile(r"[a-z]_name$|[a-z]Name$|[Ii]dentifier$")


def resource_name(labels: Mapping[str, str]) -> str | None:
    """The resource a collector's series is about (`function_name=orders-handler`), if it names one."""
    keys = sorted(k for k in labels if _RESOURCE_NAME_KEY.search(k) and k != "service_name")
    return labels[keys[0]] if keys else None
